/**
 * Which blocks are the pool's own, from the settings staff edit
 * (migrations/001_settings.sql): `pool_coinbase_tag`, text the pool writes
 * into its coinbase scriptSig (pools sign their blocks there, e.g.
 * "/Foundry USA Pool/"), and `pool_payout_addresses`, the addresses its
 * coinbase outputs pay. A block is ours when either matches.
 *
 * With both empty nothing can be recognised, and the odds are unknown
 * (null), except on regtest: there the project's own node mines every block
 * (the launcher's wallet, `generatetoaddress`), and its coinbases carry no
 * tag to configure, so every block counts as ours and the odds are 100.
 */

export interface CoinbaseInfo {
  /** The coinbase input's scriptSig (BIP 34 height, extranonce, the pool's tag). */
  scriptSig: Buffer;
  /** Addresses the coinbase outputs pay (outputs without an address, e.g. the witness commitment, are left out). */
  addresses: readonly string[];
}

export interface PoolIdentity {
  coinbaseTag: string;
  payoutAddresses: readonly string[];
  network: string;
}

/** Whether a coinbase is the pool's; undefined when the settings identify nothing (outside regtest). */
export type PoolRecogniser = ((coinbase: CoinbaseInfo) => boolean) | undefined;

export function poolRecogniser(identity: PoolIdentity): PoolRecogniser {
  const tag = identity.coinbaseTag.trim();
  const addresses = new Set(identity.payoutAddresses.map((a) => a.trim()).filter((a) => a !== ''));
  if (tag === '' && addresses.size === 0) return identity.network === 'regtest' ? () => true : undefined;
  const tagBytes = Buffer.from(tag, 'utf8');
  return (coinbase) => (tag !== '' && coinbase.scriptSig.includes(tagBytes)) || coinbase.addresses.some((a) => addresses.has(a));
}

/** A stable key for an identity, to memoise what was computed with it. */
export function identityKey(identity: PoolIdentity): string {
  return JSON.stringify([identity.network, identity.coinbaseTag.trim(), [...identity.payoutAddresses].map((a) => a.trim()).sort()]);
}
