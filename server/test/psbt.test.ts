import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats, satsToBtc } from '@slipstream/mempool-engine/bitcoin/amounts';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { finalizePsbt, recognisePsbt, type PsbtEntry } from '../src/modules/submission/psbt.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';

/**
 * PSBTs as wallets hand them out, made by the node's own wallet: the node
 * finalizes and explains, we only recognise and relay its verdict.
 */

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(4);
});

after(async () => {
  await node?.stop();
});

interface FundedPsbt {
  psbt: string;
  fee: number;
}

async function fundedPsbt(): Promise<FundedPsbt> {
  const to = await node.address();
  return node.wallet.call<FundedPsbt>('walletcreatefundedpsbt', [[], [{ [to]: '0.001' }], 0, { fee_rate: 5 }]);
}

const entry = (base64: string): PsbtEntry => recognisePsbt(base64)!;

describe('recognising a PSBT by content', () => {
  test('base64 and binary hex forms are PSBTs; a raw transaction hex is not', async () => {
    const { psbt } = await fundedPsbt();
    assert.deepEqual(recognisePsbt(psbt), { base64: psbt });
    const hex = Buffer.from(psbt, 'base64').toString('hex');
    assert.deepEqual(recognisePsbt(hex.toUpperCase()), { base64: psbt });
    assert.deepEqual(recognisePsbt(`${psbt.slice(0, 40)}\n  ${psbt.slice(40)}\n`), { base64: psbt }, 'wrapped base64 is one PSBT');
    const tx = await node.buildTx({ feeRate: 2 });
    assert.equal(recognisePsbt(tx.hex), undefined);
    assert.equal(recognisePsbt('not a psbt'), undefined);
  });
});

describe('finalizing on the node', () => {
  test('a signed, not yet finalized PSBT is finalized and extracted, with the fee it states', async () => {
    const { psbt, fee } = await fundedPsbt();
    // finalize=false: signatures only, as a wallet exports for a coordinator.
    const signed = await node.wallet.call<{ psbt: string }>('walletprocesspsbt', [psbt, true, 'ALL', true, false]);
    assert.equal((await node.rpc.call<{ inputs: Array<{ is_final: boolean }> }>('analyzepsbt', [signed.psbt])).inputs[0]!.is_final, false);
    const result = await finalizePsbt(node.rpc, entry(signed.psbt));
    assert.ok(result.ok, JSON.stringify(result));
    const extracted = await node.rpc.call<{ hex: string }>('finalizepsbt', [signed.psbt, true]);
    assert.equal(result.hex, extracted.hex);
    assert.equal(result.txid, decodeTxHex(extracted.hex).txid);
    assert.equal(result.statedFeeSats, btcToSats(fee));
  });

  test('an already finalized PSBT in hex form gives the same transaction', async () => {
    const { psbt } = await fundedPsbt();
    const finalized = await node.wallet.call<{ psbt: string; hex?: string }>('walletprocesspsbt', [psbt, true, 'ALL', true, true]);
    const hexForm = Buffer.from(finalized.psbt, 'base64').toString('hex');
    const result = await finalizePsbt(node.rpc, entry(hexForm));
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.hex, finalized.hex);
  });

  test('an unsigned PSBT is refused, naming the input and the missing signature', async () => {
    const { psbt } = await fundedPsbt();
    const decoded = await node.rpc.call<{ tx: { vin: Array<{ txid: string; vout: number }> } }>('decodepsbt', [psbt]);
    const result = await finalizePsbt(node.rpc, entry(psbt));
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    const first = decoded.tx.vin[0]!;
    assert.match(result.message, /not fully signed, so it was not submitted/);
    assert.ok(result.message.includes(`Input 0 (${first.txid}:${first.vout}) lacks a signature from 1 key`), result.message);
  });

  test('a 2-of-2 multisig PSBT with one signature is refused, saying one key has not signed', async () => {
    const other = node.rpc.wallet('cosigner');
    await node.rpc.call('createwallet', ['cosigner']);
    const keyOf = async (wallet: typeof other) => {
      const info = await wallet.call<{ pubkey: string; hdkeypath: string; hdmasterfingerprint: string }>('getaddressinfo', [await wallet.call<string>('getnewaddress', ['', 'bech32'])]);
      return `[${info.hdmasterfingerprint}${info.hdkeypath.slice(1)}]${info.pubkey}`;
    };
    const ours = await keyOf(node.wallet);
    const theirs = await keyOf(other);
    const descriptor = (await node.rpc.call<{ descriptor: string }>('getdescriptorinfo', [`wsh(multi(2,${ours},${theirs}))`])).descriptor;
    const [multisigAddress] = await node.rpc.call<string[]>('deriveaddresses', [descriptor]);
    const fundingTxid = await node.wallet.call<string>('sendtoaddress', [multisigAddress, '0.002']);
    await node.mine(1);
    const funding = await node.rpc.call<{ vout: Array<{ n: number; value: number; scriptPubKey: { address?: string } }> }>('getrawtransaction', [fundingTxid, true]);
    const out = funding.vout.find((o) => o.scriptPubKey.address === multisigAddress)!;
    const spend = await node.rpc.call<string>('createpsbt', [[{ txid: fundingTxid, vout: out.n }], [{ [await node.address()]: satsToBtc(btcToSats(out.value) - 2_000) }]]);
    const updated = await node.rpc.call<string>('utxoupdatepsbt', [spend, [descriptor]]);
    const halfSigned = await node.wallet.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [updated, true, 'ALL', true, false]);
    assert.equal(halfSigned.complete, false);

    const result = await finalizePsbt(node.rpc, entry(halfSigned.psbt));
    assert.ok(!result.ok, 'a half-signed multisig is never extracted');
    assert.ok(result.message.includes(`Input 0 (${fundingTxid}:${out.n}) lacks a signature from 1 key`), result.message);

    // The cosigner's signature completes it: the message was about exactly the missing key.
    const complete = await other.call<{ psbt: string }>('walletprocesspsbt', [halfSigned.psbt, true, 'ALL', true, false]);
    assert.equal((await finalizePsbt(node.rpc, entry(complete.psbt))).ok, true);
  });

  test('garbage after a PSBT is refused with the node\'s reason', async () => {
    const { psbt } = await fundedPsbt();
    const hex = `${Buffer.from(psbt, 'base64').toString('hex')}deadbeef`;
    const result = await finalizePsbt(node.rpc, entry(hex));
    assert.ok(!result.ok);
    assert.match(result.message, /^This PSBT cannot be read: .+/);
  });
});
