import type { PoolRecogniser } from '@slipstream/mempool-engine';
import { checkAddress, isAddressNetwork } from '../../bitcoin/address.ts';
import { MAX_COINBASE_TAG_BYTES } from './setting-values.ts';

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
 *
 * The mempool engine's block tracker counts the blocks a recogniser accepts
 * (runtime.ts hands it one, made from the settings when odds are computed).
 */

export interface PoolIdentity {
  coinbaseTag: string;
  payoutAddresses: readonly string[];
  network: string;
}

/**
 * Only what could identify a block on this network counts. The settings
 * screen refuses anything else, but a value stored before it did (or written
 * to the table by hand) must not turn "unknown" into "0%": an address of
 * another network, or no address at all, is left out, as is a tag longer
 * than any coinbase can hold. Addresses are compared as the node writes them
 * (bech32 in lower case).
 */
function usableAddresses(payoutAddresses: readonly string[], network: string): Set<string> {
  const usable = new Set<string>();
  for (const raw of payoutAddresses) {
    const text = raw.trim();
    if (text === '') continue;
    if (!isAddressNetwork(network)) {
      usable.add(text);
      continue;
    }
    const checked = checkAddress(text, network);
    if (checked.ok) usable.add(checked.address);
  }
  return usable;
}

/** Whether a coinbase is the pool's; undefined when the settings identify nothing (outside regtest). */
export function poolRecogniser(identity: PoolIdentity): PoolRecogniser {
  const trimmed = identity.coinbaseTag.trim();
  const tag = Buffer.byteLength(trimmed, 'utf8') <= MAX_COINBASE_TAG_BYTES ? trimmed : '';
  const addresses = usableAddresses(identity.payoutAddresses, identity.network);
  if (tag === '' && addresses.size === 0) return identity.network === 'regtest' ? () => true : undefined;
  const tagBytes = Buffer.from(tag, 'utf8');
  return (coinbase) => (tag !== '' && coinbase.scriptSig.includes(tagBytes)) || coinbase.addresses.some((a) => addresses.has(a));
}

/** A stable key for an identity, to memoise what was computed with it. */
export function identityKey(identity: PoolIdentity): string {
  return JSON.stringify([identity.network, identity.coinbaseTag.trim(), [...identity.payoutAddresses].map((a) => a.trim()).sort()]);
}
