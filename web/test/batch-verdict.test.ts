import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { belowMinimum, contradicted, judge, newRows, type KnownMinimum, type QueueRow, type RowTx, type SendState } from '../src/public/batch/batch-queue.ts';
import { FEE_TOO_LOW_MESSAGE, PACKAGE_FEE_TOO_LOW_MESSAGE } from '../../server/src/modules/submission/submission-rules.ts';

/**
 * A batch row's verdict against the minimum, judged in the page: the newest
 * of the parse answer, the page's minimum and the send answer decides; what
 * the page cannot judge itself (a client code's discount, a package member
 * its children pay for) is left to the server's answers.
 */

const PARSED_AT = 1_000;
const tx = (fee: number, vsize: number, meets: boolean, functionalRate = fee / vsize): RowTx => ({
  txid: 'ab'.repeat(32),
  vsize,
  fee,
  feeRate: fee / vsize,
  functionalRate,
  meetsMinimum: meets,
  message: '',
  error: false,
});
function row(txs: RowTx[], send: SendState = { state: 'unsent' }): QueueRow {
  const [made] = newRows([{ source: 'line 1', items: txs.map(() => '00'), isPackage: txs.length > 1 }]);
  return { ...made!, parse: { state: 'done', txs, at: PARSED_AT }, send };
}
const older: KnownMinimum = { rate: 5, at: PARSED_AT - 1 };
const newer = (rate: number): KnownMinimum => ({ rate, at: PARSED_AT + 1 });

describe('a row not sent', () => {
  test('the parse verdict stands against a minimum older than it', () => {
    assert.equal(judge(row([tx(400, 100, true)]), 0, older, false), 'clears');
    assert.equal(judge(row([tx(400, 100, false)]), 0, older, false), 'below');
  });

  test('a newer minimum judges it again, as the server compares: the integer fee against the fee the rate asks, rounded up', () => {
    assert.equal(judge(row([tx(600, 100, true)]), 0, newer(6.01), false), 'below');
    assert.equal(judge(row([tx(601, 100, true)]), 0, newer(6.01), false), 'clears');
    assert.equal(judge(row([tx(400, 100, false)]), 0, newer(3), false), 'clears');
  });

  test('a single transaction is judged with the unconfirmed parents it spends', () => {
    // Its own rate clears; counted with a cheap parent it does not.
    assert.equal(judge(row([tx(800, 100, true, 4)]), 0, newer(5), false), 'below');
    // Its own rate does not; a child never lifts its parent in a single row.
    assert.equal(judge(row([tx(400, 100, true, 9)]), 0, newer(5), false), 'below');
  });

  test('with a client code or in a package, below the page\'s minimum keeps the server\'s verdict; clearing it clears', () => {
    // A discount may still let it through; the page's minimum is the one without a code.
    assert.equal(judge(row([tx(400, 100, true)]), 0, newer(5), true), 'clears');
    assert.equal(judge(row([tx(400, 100, false)]), 0, newer(5), true), 'below');
    assert.equal(judge(row([tx(600, 100, false)]), 0, newer(5), true), 'clears');
    // A parent below the minimum that its child pays for.
    const pkg = row([tx(100, 100, true), tx(1_000, 100, true)]);
    assert.deepEqual([judge(pkg, 0, newer(5), false), judge(pkg, 1, newer(5), false)], ['clears', 'clears']);
  });

  test('no fee known: the server\'s words, whatever the minimum', () => {
    assert.equal(judge(row([{ ...tx(400, 100, true), meetsMinimum: null }]), 0, newer(5), false), 'message');
  });
});

describe('a row sent', () => {
  test('accepted: it cleared the minimum when sent, whatever the parse said or the minimum is now', () => {
    const sent = row([tx(400, 100, false)], { state: 'accepted', txids: ['ab'.repeat(32)] });
    assert.equal(judge(sent, 0, newer(50), false), 'cleared-when-sent');
  });

  test('refused as below the minimum: below until a minimum newer than the refusal arrives', () => {
    const refused = row([tx(900, 100, true)], { state: 'refused', message: FEE_TOO_LOW_MESSAGE, belowMinimum: [0], at: PARSED_AT + 10 });
    assert.equal(judge(refused, 0, newer(5), false), 'below');
    assert.equal(judge(refused, 0, { rate: 5, at: PARSED_AT + 11 }, false), 'clears');
    assert.equal(judge(refused, 0, { rate: 10, at: PARSED_AT + 11 }, false), 'below');
    // With a client code, a newer minimum it does not clear leaves the refusal standing, not the parse verdict.
    assert.equal(judge(refused, 0, { rate: 10, at: PARSED_AT + 11 }, true), 'below');
  });

  test('refused for another reason: judged as a row not sent', () => {
    const refused = row([tx(400, 100, true)], { state: 'refused', message: 'Some inputs are missing.' });
    assert.equal(judge(refused, 0, newer(5), false), 'below');
  });

  test('an answer otherwise than the page judged says its minimum is out of date', () => {
    const refused = row([tx(900, 100, true)], { state: 'refused', message: FEE_TOO_LOW_MESSAGE, belowMinimum: [0], at: PARSED_AT + 10 });
    assert.equal(contradicted(refused, older, false), true);
    assert.equal(contradicted(row([tx(400, 100, false)], { state: 'accepted', txids: [] }), older, false), true);
    assert.equal(contradicted(row([tx(900, 100, true)], { state: 'accepted', txids: [] }), older, false), false);
  });
});

describe('the server\'s refusals for a fee below the minimum', () => {
  test('a single transaction\'s, and a package member\'s by its position', () => {
    assert.deepEqual(belowMinimum(FEE_TOO_LOW_MESSAGE, false), [0]);
    assert.deepEqual(belowMinimum(`Transaction 2 of the package ${PACKAGE_FEE_TOO_LOW_MESSAGE}`, true), [1]);
    assert.deepEqual(belowMinimum('Some inputs are missing.', false), []);
    assert.deepEqual(belowMinimum(FEE_TOO_LOW_MESSAGE, true), []);
  });
});
