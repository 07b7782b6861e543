import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { inPackageDescendants, judgePackage, type PricedMember } from './package-cpfp.ts';

/** A transaction with only what the package rule reads: its txid and the txids it spends. */
const tx = (txid: string, spends: string[] = ['f'.repeat(64)]) => ({ txid, inputs: spends.map((id) => ({ txid: id, vout: 0 })) }) as unknown as DecodedTx;
const member = (txid: string, fee: number, vsize: number, spends?: string[]): PricedMember => ({ tx: tx(txid, spends), fee, vsize });

describe('child pays for parent in a package', () => {
  it('finds the members that spend each one, directly or not', () => {
    assert.deepEqual(inPackageDescendants([tx('a'), tx('b', ['a']), tx('c', ['b']), tx('d')]), [[1, 2], [2], [], []]);
  });

  it('takes a parent below the minimum when it and its child clear it together', () => {
    // 100 + 900 sats over 100 + 100 vB = 5 sat/vB, against 4.
    assert.deepEqual(judgePackage([member('p', 100, 100), member('c', 900, 100, ['p'])], 4), { unpaid: -1, lifted: [[0, 1]] });
  });

  it('refuses the parent when the two together stay below', () => {
    // 100 + 600 over 200 vB = 3.5 sat/vB, against 4: the parent is the one not paid for.
    assert.deepEqual(judgePackage([member('p', 100, 100), member('c', 600, 100, ['p'])], 4), { unpaid: 0, lifted: [] });
  });

  it('a child below the minimum is paid for by nothing', () => {
    assert.deepEqual(judgePackage([member('p', 1000, 100), member('c', 100, 100, ['p'])], 4), { unpaid: 1, lifted: [] });
  });

  it('an unrelated rich member pays for nobody', () => {
    assert.deepEqual(judgePackage([member('p', 100, 100), member('x', 5000, 100)], 4), { unpaid: 0, lifted: [] });
  });

  it('one child is not counted twice for two cheap parents', () => {
    // Each parent with the child: (0 + 1000) / 200 = 5 ≥ 4; all three: 1000 / 300 < 4.
    const members = [member('p', 0, 100), member('q', 0, 100), member('c', 1000, 100, ['p', 'q'])];
    assert.deepEqual(judgePackage(members, 4), { unpaid: 0, lifted: [] });
    assert.deepEqual(judgePackage(members, 3), { unpaid: -1, lifted: [[0, 2], [1, 2]] });
  });
});
