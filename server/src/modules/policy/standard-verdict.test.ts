import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RpcClient } from '../../bitcoin/rpc-client.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { OracleAnswer, PolicyOracle } from './policy-oracle.ts';
import { judgeStandard, type HexTx } from './standard-verdict.ts';

/**
 * judgeStandard with a recording oracle: what it is asked (the package
 * order testmempoolaccept insists on) and how its package errors are read.
 * The regtest oracle answers the same in test/standard-policy.test.ts.
 */

const txid = (n: number) => n.toString(16).padStart(64, '0');
const CONFIRMED = 'ff'.repeat(32);

/** A transaction `n` spending output 0 of each of `parents` (a confirmed coin when none); its hex is `hex-n`. */
function item(n: number, parents: number[]): HexTx {
  const inputs = (parents.length ? parents.map(txid) : [CONFIRMED]).map((id) => ({ txid: id, vout: 0, scriptSig: '', sequence: 0xffff_fffd, witness: [] }));
  return { tx: { txid: txid(n), inputs } as unknown as DecodedTx, hex: `hex-${n}` };
}

const rpc = { call: async () => 100 } as unknown as RpcClient;
const noPortalTxids = async () => new Set<string>();

function recordingOracle(answer: (hexes: string[]) => OracleAnswer[] = (hexes) => hexes.map((h) => ({ txid: txid(Number(h.slice(4))), allowed: true }))) {
  const asked: string[][] = [];
  const oracle: PolicyOracle = {
    height: async () => 100,
    testAccept: async (hexes) => {
      asked.push(hexes);
      return answer(hexes);
    },
  };
  return { oracle, asked };
}

/** Every member after all its parents among the members. */
function parentsFirst(pkg: string[], items: HexTx[]): boolean {
  const byHex = new Map(items.map((i) => [i.hex, i.tx]));
  const at = new Map(pkg.map((h, k) => [byHex.get(h)!.txid, k]));
  return pkg.every((h, k) => byHex.get(h)!.inputs.every((input) => (at.get(input.txid) ?? -1) < k));
}

test('in-list ancestors are sent parents first, whatever the order of the list', async () => {
  // A chain given child first: 3 spends 2, 2 spends 1.
  const chain = [item(3, [2]), item(2, [1]), item(1, [])];
  const { oracle, asked } = recordingOracle();
  const verdicts = await judgeStandard({ policy: oracle, rpc, portalTxids: noPortalTxids }, chain);
  assert.deepEqual(asked, [['hex-1', 'hex-2', 'hex-3'], ['hex-1', 'hex-2'], ['hex-1']]);
  assert.deepEqual([...verdicts.values()], chain.map(() => ({ verdict: 'standard' })));

  // A diamond, also reversed: 4 spends 2 and 3, each of them spends 1; 5 spends 4 and 1.
  const diamond = [item(5, [4, 1]), item(4, [2, 3]), item(3, [1]), item(2, [1]), item(1, [])];
  const second = recordingOracle();
  await judgeStandard({ policy: second.oracle, rpc, portalTxids: noPortalTxids }, diamond);
  assert.equal(second.asked[0]!.length, 5);
  for (const pkg of second.asked) assert.ok(parentsFirst(pkg, diamond), pkg.join(' '));
});

test('package-mempool-limits is a chain limit: non-standard, explained', async () => {
  const { oracle } = recordingOracle((hexes) => [{ txid: txid(Number(hexes.at(-1)!.slice(4))), 'package-error': 'package-mempool-limits' }]);
  const list = [item(1, []), item(2, [1])];
  const verdicts = await judgeStandard({ policy: oracle, rpc, portalTxids: noPortalTxids }, list);
  const verdict = verdicts.get(list[1]!.tx)!;
  assert.equal(verdict.verdict, 'non-standard');
  assert.equal(verdict.reason, 'package-mempool-limits');
  assert.match(verdict.explanation ?? '', /limits on chains/);
});

test('a transaction the oracle already has is no standardness refusal: mined, nothing to judge; in its mempool, relayed', async () => {
  const answering = (reason: string) => recordingOracle((hexes) => hexes.map((h) => ({ txid: txid(Number(h.slice(4))), allowed: false, 'reject-reason': reason })));
  const judged = async (reason: string) => {
    const list = [item(1, [])];
    return (await judgeStandard({ policy: answering(reason).oracle, rpc, portalTxids: noPortalTxids }, list)).get(list[0]!.tx);
  };
  // Bitcoin Core validation.cpp PreChecks: its outputs are in the UTXO set (it is mined) → txn-already-known.
  assert.deepEqual(await judged('txn-already-known'), { verdict: 'unknown' });
  // The oracle's mempool holds only what its default policy accepted.
  assert.deepEqual(await judged('txn-already-in-mempool'), { verdict: 'standard' });
  assert.equal((await judged('dust'))?.verdict, 'non-standard', 'a real refusal is still one');
});
