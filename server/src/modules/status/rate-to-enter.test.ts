import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FamilyTx, MempoolTxView, MempoolView } from '@slipstream/mempool-engine';
import type { PortalFamily } from './portal-family.ts';
import { countedPackage, rateToBeatFor, rateToEnter } from './rate-to-enter.ts';

/** A view whose next block holds `members` (vsize, functional rate) and nothing else, filled up to `blockWeightLimit`. */
function viewOf(blockWeightLimit: number, members: Array<[number, number]>): MempoolView {
  const txs = new Map(members.map(([vsize, functionalRate], i) => [String(i), { txid: String(i), vsize, weight: 4 * vsize, functionalRate } as MempoolTxView]));
  return {
    marketRate: 2,
    blockWeightLimit,
    blocks: [{ vsize: members.reduce((a, [vsize]) => a + vsize, 0), weight: members.reduce((a, [vsize]) => a + 4 * vsize, 0) }],
    nextBlockTxids: () => [...txs.keys()],
    transaction: (txid: string) => txs.get(txid),
  } as unknown as MempoolView;
}

test('the room a package finds in the next block follows the configured block weight, not the consensus maximum', () => {
  // 900,000 vB (3.6 MWU) taken: a 4 MWU block (less the coinbase's 8,000 WU) has 392,000 WU left, a 3.608 MWU one 8,000.
  const members: Array<[number, number]> = [[300_000, 3], [300_000, 4], [300_000, 5]];
  assert.equal(rateToEnter(viewOf(4_000_000 - 8_000, members), 50_000), 2, 'room enough: the rate to beat');
  // The smaller block makes room only by pushing out its cheapest packages, and at their rate.
  assert.equal(rateToEnter(viewOf(3_608_000, members), 50_000), 3);
  assert.equal(rateToEnter(viewOf(3_608_000, [[10_000, 3], [445_000, 4], [445_000, 5]]), 50_000), 4);
});

test('the rate to beat for a size: a transaction with its counted ancestors, those in the next block left out', () => {
  // 3.608 MWU of room, 3.6 MWU taken: 8,000 WU (a package under 2,000 vB) free before anything is pushed out.
  const view = viewOf(3_608_000, [[300_000, 3], [300_000, 4], [300_000, 5]]);
  const ancestor = (txid: string, fee: number, vsize: number) => ({ txid, fee, vsize, parents: [] }) as unknown as FamilyTx;
  const family = { rate: 1, ancestors: [ancestor('0', 900_000, 300_000), ancestor('a', 3_000, 1_500)], descendants: [], withOthers: false } as PortalFamily;
  // '0' is in the next block (viewOf's members carry no position: give it one), 'a' is not.
  (view.transaction('0') as { position?: { block: number } }).position = { block: 0 };
  assert.deepEqual(countedPackage({ fee: 200, vsize: 400 }, view, family), { fee: 3_200, vsize: 1_900, ancestors: 1, ancestorFee: 3_000, ancestorVsize: 1_500 });
  assert.equal(rateToBeatFor({ fee: 200, vsize: 400 }, view, family), 2, 'fits the free room: the market rate');
  assert.equal(rateToBeatFor({ fee: 200, vsize: 600 }, view, family), 3, 'with its ancestor, too big for the free room: the cheapest package pushed out');
});
