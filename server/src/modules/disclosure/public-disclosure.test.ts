import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../http/errors.ts';
import { NOT_SUBMITTED_HERE, publicRefusal, withoutPrivateIds } from './public-disclosure.ts';

const id = (byte: string) => byte.repeat(32);
const [own, ownWtxid, portals, hidden, other] = ['01', '02', '03', '04', '05'].map(id) as [string, string, string, string, string];

/** The portal's records: `portals` only; each question written to `asked`. */
function records(asked: string[][]) {
  return (txids: readonly string[]) => {
    asked.push([...txids]);
    return Promise.resolve(new Set(txids.filter((t) => t === portals)));
  };
}

test('a refusal keeps the caller\'s own ids and the portal\'s, and says any other without it; staff keep the node\'s words', async () => {
  const asked: string[][] = [];
  const node = `bad-txns-spends-conflicting-tx, ${own} spends conflicting transaction ${hidden} and ${portals.toUpperCase()}`;
  const told = await publicRefusal(records(asked), new ApiError(422, node, { notice: 'n' }), new Set([own, ownWtxid]));
  assert.equal(told.message, `bad-txns-spends-conflicting-tx, ${own} spends conflicting transaction ${NOT_SUBMITTED_HERE} and ${portals.toUpperCase()}`);
  assert.equal(told.statusCode, 422);
  assert.deepEqual(told.extra, { notice: 'n' });
  assert.equal(told.staffDetail, node);
  assert.deepEqual(asked, [[hidden, portals]], 'one question, about the ids outside the caller\'s own');
  assert.equal(await publicRefusal(records(asked), told, new Set()), told, 'passed once: given back as it is');
});

test('a package refusal: the package\'s message and each member\'s reason, keyed by the members\' own wtxids', async () => {
  const result = {
    package_msg: `transaction failed: ${other}`,
    'tx-results': { [ownWtxid]: { txid: own, error: `conflicts with ${hidden}` }, [id('06')]: { txid: id('07'), vsize: 100 } },
    'replaced-transactions': [],
  };
  const told = await publicRefusal(records([]), new ApiError(422, 'refused', { result }, 'the node said more'), new Set([own, ownWtxid, id('06'), id('07')]));
  assert.equal(told.message, 'refused');
  assert.equal(told.staffDetail, 'the node said more');
  assert.deepEqual(told.extra?.['result'], {
    package_msg: `transaction failed: ${NOT_SUBMITTED_HERE}`,
    'tx-results': { [ownWtxid]: { txid: own, error: `conflicts with ${NOT_SUBMITTED_HERE}` }, [id('06')]: { txid: id('07'), vsize: 100 } },
    'replaced-transactions': [],
  });
});

test('a refusal naming nothing else is given back unchanged, without a question', async () => {
  const asked: string[][] = [];
  const refusal = new ApiError(422, `Transaction ${own} pays too little.`);
  assert.equal(await publicRefusal(records(asked), refusal, new Set([own])), refusal);
  assert.deepEqual(await withoutPrivateIds(records(asked), ['no ids here', `only ${own}`], new Set([own])), ['no ids here', `only ${own}`]);
  assert.deepEqual(asked, []);
});
