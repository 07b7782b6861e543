import { parseArgs } from 'node:util';
import { createRegtestWallet, type RegtestWallet } from '../bitcoin/regtest-wallet.ts';
import { ConfigError } from '../../src/config/config.ts';
import { btcPerKvbToSatPerVb } from '../../src/bitcoin/amounts.ts';
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
  --cpfp      puts a low-fee parent into the node's mempool and prints a child paying for it
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
    const parent = await wallet.buildTx({ feeRate: relayMinimum });
    await rpc.call('sendrawtransaction', [parent.hex]);
    // Enough for the pair of them to clear the minimum together.
    const child = await wallet.buildChild({ parentHex: parent.hex, vout: 0, feeRate: rate(minimum * 3 + 1) });
    console.error(`parent ${parent.txid} is in the node's mempool at ${relayMinimum} sat/vB; the child below pays for it`);
    console.log(child.hex);
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
