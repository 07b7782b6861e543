import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { TOO_MANY_STATUS_STREAMS_FROM_IP_MESSAGE } from '../src/modules/status/status-stream.ts';
import { openEventStream, type SseConnection, type SseFrame } from './helpers/sse-client.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * GET /rest-api/status-stream on a real node: the status-check answer at
 * once, then a new one when a block mines the transaction, without asking;
 * a bad txid answered as the status check answers it; streams capped per
 * address; every connection spends the public rate-limit budget.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(10);
});
after(async () => node?.stop());

const isStatus = (f: SseFrame) => f.kind === 'event' && f.event === 'status';
const answerOf = (f: SseFrame) => JSON.parse((f as { data: string }).data) as StatusResponse;

for (const engine of testDatabases()) {
  describe(`status stream (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let base: string;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db, { rateLimitMax: 7 });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('the answer at once, then the confirmed one when a block mines it; capped per address; spends the budget', async () => {
      const tx = await node.buildTx({ feeRate: 20 });
      const submitted = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(submitted.body.status, 'success', submitted.body.message);

      const bad = await fetch(`${base}/rest-api/status-stream?tx_id=nothex`);
      assert.equal(bad.status, 400);

      const streams: SseConnection[] = [];
      try {
        streams.push(await openEventStream(`${base}/rest-api/status-stream?tx_id=${tx.txid}`));
        const first = answerOf(await streams[0]!.waitFor(isStatus));
        assert.equal(first.state, 'in_mempool');
        assert.equal(first.transaction.txid, tx.txid);

        const [hash] = await node.mine(1);
        const mined = answerOf(await streams[0]!.waitFor((f) => isStatus(f) && answerOf(f).state === 'confirmed'));
        assert.equal(mined.transaction.status.block_hash, hash);

        // Four streams per address: the fifth is refused.
        for (let k = 1; k < 4; k++) streams.push(await openEventStream(`${base}/rest-api/status-stream?tx_id=${tx.txid}`));
        const fifth = await fetch(`${base}/rest-api/status-stream?tx_id=${tx.txid}`);
        assert.equal(fifth.status, 429);
        assert.equal(((await fifth.json()) as { message: string }).message, TOO_MANY_STATUS_STREAMS_FROM_IP_MESSAGE);
      } finally {
        for (const s of streams) s.close();
      }
      // Seven requests so far from this address (the submission, the bad txid, five streams): the budget of seven is spent.
      const spent = await fetch(`${base}/rest-api/status-stream?tx_id=${tx.txid}`);
      assert.equal(spent.status, 429);
    });
  });
}
