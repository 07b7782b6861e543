import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MempoolTxView, MempoolView } from '@slipstream/mempool-engine';
import { ASSUMED_CHILD_VSIZE, childVsizeFor, rateToEnter } from './bump-advice.ts';

/** A view whose next block holds `members` (vsize, functional rate) and nothing else, filled up to `blockWeightLimit`. */
function viewOf(blockWeightLimit: number, members: Array<[number, number]>): MempoolView {
  const txs = new Map(members.map(([vsize, functionalRate], i) => [String(i), { txid: String(i), vsize, functionalRate } as MempoolTxView]));
  return {
    marketRate: 2,
    blockWeightLimit,
    blocks: [{ vsize: members.reduce((a, [vsize]) => a + vsize, 0) }],
    nextBlockTxids: () => [...txs.keys()],
    transaction: (txid: string) => txs.get(txid),
  } as unknown as MempoolView;
}

test('the room a package finds in the next block follows the configured block weight, not the consensus maximum', () => {
  // 900,000 vB taken: a 4 MWU block (less the coinbase's 8,000 WU) has 97,999 vB left, a 3.608 MWU one (902,000 vB) 1,999.
  const members: Array<[number, number]> = [[300_000, 3], [300_000, 4], [300_000, 5]];
  assert.equal(rateToEnter(viewOf(4_000_000 - 8_000, members), 50_000), 2, 'room enough: the rate to beat');
  // The smaller block makes room only by pushing out its cheapest packages, and at their rate.
  assert.equal(rateToEnter(viewOf(3_608_000, members), 50_000), 3);
  assert.equal(rateToEnter(viewOf(3_608_000, [[10_000, 3], [445_000, 4], [445_000, 5]]), 50_000), 4);
});

test("a child's size by the script of the output it spends: one input of that kind, one P2WPKH output", () => {
  assert.equal(childVsizeFor('witness_v0_keyhash'), 110); // 10.5 + 68 + 31 = 109.5
  assert.equal(childVsizeFor('witness_v1_taproot'), 99); // 10.5 + 57.5 + 31
  assert.equal(childVsizeFor('pubkeyhash'), 190); // 10.5 + 148 + 31 = 189.5
  assert.equal(childVsizeFor('scripthash'), 133); // 10.5 + 91 + 31 = 132.5
  assert.equal(childVsizeFor('witness_v0_scripthash'), ASSUMED_CHILD_VSIZE, 'unknown spend: the P2WPKH-sized assumption');
  assert.equal(childVsizeFor('nonstandard'), ASSUMED_CHILD_VSIZE);
});
