import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MempoolMirror } from '../mirror/mempool-mirror.ts';
import { familyOf } from './mempool-family.ts';

const id = (name: string) => name.charCodeAt(0).toString(16).padStart(64, '0');

/** Adds `name` with `parents` (already held) at `fee` sats (the pool prioritises each by +1,000: the family keeps base fees). */
function add(mirror: MempoolMirror, name: string, fee: number, parents: string[] = []): void {
  mirror.add(id(name), { fee, modifiedFee: fee + 1_000, vsize: 100, weight: 400, time: 0, depends: parents.map(id), spentby: [] }, 0);
}

test("a transaction's family: itself first, its ancestors, its descendants and their other ancestors; nothing unrelated", () => {
  const mirror = new MempoolMirror();
  // g → p → t → c ← q ← r, t → d; u unrelated; s a child of q only (not t's business).
  add(mirror, 'g', 1);
  add(mirror, 'p', 2, ['g']);
  add(mirror, 't', 3, ['p']);
  add(mirror, 'r', 4);
  add(mirror, 'q', 5, ['r']);
  add(mirror, 'c', 6, ['t', 'q']);
  add(mirror, 'd', 7, ['t']);
  add(mirror, 's', 8, ['q']);
  add(mirror, 'u', 9);

  const family = familyOf(mirror, id('t'))!;
  assert.equal(family[0]!.txid, id('t'));
  assert.deepEqual(family.map((m) => m.txid).sort(), ['c', 'd', 'g', 'p', 'q', 'r', 't'].map(id).sort());
  const c = family.find((m) => m.txid === id('c'))!;
  assert.deepEqual({ fee: c.fee, vsize: c.vsize, parents: [...c.parents].sort() }, { fee: 6, vsize: 100, parents: [id('q'), id('t')] });
  assert.deepEqual(familyOf(mirror, id('u'))!.map((m) => m.txid), [id('u')], 'alone');
  assert.equal(familyOf(mirror, id('x')), undefined, 'not held');

  mirror.remove(id('p'), 'mined', 0);
  assert.deepEqual(familyOf(mirror, id('t'))!.map((m) => m.txid).sort(), ['c', 'd', 'q', 'r', 't'].map(id).sort(), 'a mined parent takes its ancestors out of the family');
});
