import { parseArgs } from 'node:util';
import { createRegtestWallet, type RegtestWallet } from '../bitcoin/regtest-wallet.ts';
import { ConfigError } from '../../src/config/config.ts';
import { btcPerKvbToSatPerVb } from '@slipstream/mempool-engine/bitcoin/amounts';
import { currentMinimum, findPortal } from './find-portal.ts';

/**
 * `npm run -s demo:tx`: prints a transaction to paste into the portal, made
 * by the regtest node's wallet (signed, not broadcast). It asks the running
 * portal for the current minimum fee rate so that the default transaction
 * clears it and `--low-fee` does not. The portal and its node are found
 * whatever their ports (find-portal.ts).
 */

const USAGE = `Usage: npm run -s demo:tx [-- --low-fee | --package | --cpfp | --oversize | --psbt]
  (default)   a valid signed transaction that clears the current minimum fee rate
  --low-fee   one that does not
  --package   a comma-separated parent,child package
  --cpfp      three lines: a parent below the minimum (sent nowhere), a child paying for both, and the two as parent,child
  --oversize  one over 400,000 weight units
  --psbt      a PSBT (base64), signed and not yet finalized: the portal finalizes it`;

/** Rates are sent to the wallet with at most 3 decimals. */
const rate = (satPerVb: number) => Math.ceil(satPerVb * 1000) / 1000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'low-fee': { type: 'boolean' }, package: { type: 'boolean' }, cpfp: { type: 'boolean' }, oversize: { type: 'boolean' }, psbt: { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if ([values['low-fee'], values.package, values.cpfp, values.oversize, values.psbt].filter(Boolean).length > 1) throw new Error(`Pick one option.\n${USAGE}`);

  const found = await findPortal();
  const { rpc } = found;
  const { chain } = await rpc.call<{ chain: string }>('getblockchaininfo');
  if (chain !== 'regtest') throw new Error(`demo:tx only runs against a regtest node; this one runs ${chain}.`);

  const minimum = await currentMinimum(found);
  const wallet = createRegtestWallet(rpc);
  const enough = rate(minimum * 1.5 + 0.5);
  const mempool = await rpc.call<{ minrelaytxfee: number }>('getmempoolinfo');
  const relayMinimum = rate(btcPerKvbToSatPerVb(mempool.minrelaytxfee));

  if (values['low-fee']) {
    // Above the node's relay minimum, below the portal's: the portal must refuse it.
    console.log((await wallet.buildTx({ feeRate: rate(Math.max(relayMinimum, minimum / 2)) })).hex);
  } else if (values.package) {
    const parent = await wallet.buildTx({ feeRate: enough });
    const child = await wallet.buildChild({ parentHex: parent.hex, vout: 0, feeRate: enough });
    console.log(`${parent.hex},${child.hex}`);
  } else if (values.cpfp) {
    // The embedded regtest node has no public network around it, so no parent counts as public there: the parent is
    // sent nowhere, and the user gives it (pasted first, or with the child as parent,child). At the node's own relay
    // minimum, which the node takes in a package (Knots refuses less, package or not), below the portal's minimum.
    const parent = await wallet.buildTx({ feeRate: relayMinimum });
    // Enough for the pair of them to clear the minimum together, with room for the market to move.
    const child = await wallet.buildChild({ parentHex: parent.hex, vout: 0, feeRate: rate(minimum * 3 + 1) });
    const together = (parent.fee + child.fee) / (parent.vsize + child.vsize);
    console.error(`1. parent ${parent.txid}: ${relayMinimum} sat/vB, below the portal's minimum of ${minimum} sat/vB; not sent anywhere`);
    console.error(`2. child ${child.txid}: pays for both (${together.toFixed(2)} sat/vB together)`);
    console.error('3. both in one paste, parent first');
    console.error('Paste line 1, then line 2 (the portal remembers the parent you pasted, for your child), or line 3 alone.');
    console.log(parent.hex);
    console.log(child.hex);
    console.log(`${parent.hex},${child.hex}`);
  } else if (values.psbt) {
    console.log(await signedPsbt(wallet, enough));
  } else if (values.oversize) {
    console.log((await wallet.buildOversize({ feeRate: enough })).hex);
  } else {
    console.log((await wallet.buildTx({ feeRate: enough })).hex);
  }
}

/**
 * A PSBT (BIP 174) as a wallet hands one over for broadcast by someone else:
 * funded and signed by the `portal` wallet, not finalized (no final
 * scriptSig or witness yet), so that the portal's own finalizing is what
 * makes it a transaction.
 */
async function signedPsbt(wallet: RegtestWallet, feeRate: number): Promise<string> {
  const funded = await wallet.wallet.call<{ psbt: string }>('walletcreatefundedpsbt', [[], [{ [await wallet.address()]: '0.001' }], 0, { fee_rate: feeRate }]);
  // walletprocesspsbt(psbt, sign, sighashtype, bip32derivs, finalize)
  const signed = await wallet.wallet.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [funded.psbt, true, 'ALL', true, false]);
  return signed.psbt;
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : String(error));
  process.exit(1);
});
