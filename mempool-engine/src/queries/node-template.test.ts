import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MempoolTxView, MempoolView } from './mempool-view.ts';
import { compareTemplate, overlayTemplate, templateDiffers, TEMPLATE_REUSE_MS, type NodeTemplate } from './node-template.ts';

/**
 * The projection's block 0 against the node's template, on a hand-made view:
 * what counts as a difference, and the view that follows the node.
 */

const NOW_MS = 1_800_000_000_000;
const OLD = NOW_MS / 1000 - 600;
const TIP = { hash: 'ab'.repeat(32), height: 900_000 };
const LIMIT = 3_996_000;

interface Spec {
  txid: string;
  vsize: number;
  rate: number;
  block: number | null;
  firstSeen?: number;
  projected?: boolean;
}

/** A view whose block 0 holds the specs placed in it, in order; `full` fills it to the limit. */
function viewOf(specs: Spec[], full: boolean): MempoolView {
  const byId = new Map<string, MempoolTxView>();
  const blockZero: string[] = [];
  const at = [0, 0];
  for (const s of specs) {
    const block = s.block;
    if (block !== null && block < 2) at[block]! += s.vsize;
    byId.set(s.txid, {
      txid: s.txid, fee: Math.round(s.rate * s.vsize), modifiedFee: Math.round(s.rate * s.vsize), vsize: s.vsize, weight: 4 * s.vsize,
      firstSeen: s.firstSeen ?? OLD, projected: s.projected ?? true,
      position: block === null ? null : { block, vsize: block < 2 ? at[block]! : s.vsize }, functionalRate: s.rate,
    });
    if (block === 0) blockZero.push(s.txid);
  }
  const weight = full ? LIMIT : blockZero.reduce((w, id) => w + byId.get(id)!.weight, 0);
  const minRate = Math.min(...blockZero.map((id) => byId.get(id)!.functionalRate!));
  return {
    updatedAtMs: NOW_MS, lagMs: 0, tip: TIP, marketRate: full ? minRate : 1, minRelayRate: 1, nextBlockFull: full, blockWeightLimit: LIMIT,
    mempool: { txCount: specs.length, vsize: 0, totalFees: 0 },
    blocks: [{ index: 0, txCount: blockZero.length, weight, vsize: weight / 4, totalFees: 0, minRate, maxRate: 0, medianRate: 0 }],
    transaction: (txid) => byId.get(txid),
    nextBlockTxids: () => [...blockZero],
    family: () => undefined,
  };
}

const templateOf = (txids: string[], weights: number[]): NodeTemplate => ({
  fetchedAtMs: NOW_MS, previousBlockHash: TIP.hash, txids, weights, weight: weights.reduce((a, b) => a + b, 0),
});

describe('comparing the projection with the node template', () => {
  const specs: Spec[] = [
    { txid: 'a', vsize: 200, rate: 30, block: 0 },
    { txid: 'b', vsize: 100, rate: 20, block: 0 },
    { txid: 'c', vsize: 100, rate: 10, block: 0 },
    { txid: 'low', vsize: 100, rate: 1, block: 1 },
  ];

  test('the same transactions: no difference, agreement 1', () => {
    const c = compareTemplate(viewOf(specs, false), templateOf(['a', 'b', 'c'], [800, 400, 400]))!;
    assert.deepEqual([c.templateOnly, c.projectionOnly, c.unseen, c.agreement], [0, 0, 0, 1]);
    assert.equal(templateDiffers(c), false);
  });

  test("each side's extra transactions are counted, with the weight both hold over the larger block", () => {
    const c = compareTemplate(viewOf(specs, false), templateOf(['a', 'b', 'low'], [800, 400, 400]))!;
    assert.deepEqual([c.templateOnly, c.projectionOnly], [1, 1]);
    assert.equal(c.agreement, 1200 / 1600);
    assert.equal(templateDiffers(c), true);
  });

  test('not judged: what the projection has not placed yet, and what is too young for a reused template', () => {
    const young = NOW_MS / 1000 - (TEMPLATE_REUSE_MS - 1000) / 1000;
    const view = viewOf([...specs.slice(0, 2), { txid: 'c', vsize: 100, rate: 10, block: 0, firstSeen: young }, { txid: 'new', vsize: 100, rate: 50, block: null, projected: false }], false);
    const c = compareTemplate(view, templateOf(['new', 'a', 'b'], [400, 800, 400]))!;
    assert.deepEqual([c.templateOnly, c.projectionOnly, c.unseen, c.agreement], [0, 0, 2, 1]);
  });

  test('another tip: nothing to compare', () => {
    assert.equal(compareTemplate(viewOf(specs, false), { ...templateOf(['a'], [800]), previousBlockHash: 'cd'.repeat(32) }), undefined);
  });
});

describe('the view that follows the node for block 0', () => {
  test("positions in the template's order; what the node left out is in block 1; block 0's size is the node's", () => {
    const view = overlayTemplate(viewOf([
      { txid: 'a', vsize: 200, rate: 30, block: 0 },
      { txid: 'b', vsize: 100, rate: 20, block: 0 },
      { txid: 'c', vsize: 100, rate: 10, block: 0 },
      { txid: 'low', vsize: 100, rate: 1, block: 1 },
    ], false), templateOf(['b', 'low', 'a'], [400, 400, 800]));
    assert.deepEqual(['b', 'low', 'a', 'c'].map((id) => view.transaction(id)!.position), [{ block: 0, vsize: 100 }, { block: 0, vsize: 200 }, { block: 0, vsize: 400 }, { block: 1, vsize: 100 }]);
    assert.deepEqual(view.nextBlockTxids(), ['b', 'low', 'a']);
    assert.equal(view.blocks[0]!.weight, 1600);
    assert.equal(view.blocks[0]!.txCount, 3);
    assert.equal(view.marketRate, 1, 'not full: the relay minimum');
  });

  test('a full node block: the rate to beat is the lowest rate of what both take, not of a favoured transaction or one left out', () => {
    const specs: Spec[] = [
      { txid: 'a', vsize: 400_000, rate: 30, block: 0 },
      { txid: 'b', vsize: 300_000, rate: 20, block: 0 },
      { txid: 'c', vsize: 289_000, rate: 10, block: 0 },
      { txid: 'favoured', vsize: 290_000, rate: 2, block: 1 },
      { txid: 'later', vsize: 1000, rate: 1.5, block: 1 },
    ];
    const projected = viewOf(specs, true);
    assert.equal(projected.marketRate, 10);
    const view = overlayTemplate(projected, templateOf(['a', 'b', 'favoured'], [1_600_000, 1_200_000, 1_160_000]));
    assert.equal(view.nextBlockFull, true);
    assert.equal(view.marketRate, 20, "c, at 10 sat/vB, is out of the node's block; 'favoured' is in at 2 sat/vB by the node's choice");
    assert.equal(view.transaction('c')!.position!.block, 1);
    assert.equal(view.transaction('favoured')!.position!.block, 0);
  });
});
