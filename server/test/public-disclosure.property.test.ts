import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { unsignedSpendOf } from './helpers/keyless-spends.ts';
import { openEventStream, type SseConnection } from './helpers/sse-client.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The public door's privacy rule as a property: whatever happens in the
 * pool's mempool, and in whatever order, no public answer names a
 * transaction the portal did not accept, unless it is mined.
 *
 * Each run is a random schedule of: transactions sent straight to the node
 * (the pool's private channels), portal submissions, replacements either
 * way, packages replacing private transactions, a stranger's unsigned
 * spend of a private transaction's input submitted while a dozen status
 * polls race it, and blocks. After every step, every answer of every public
 * read (status-check, the Slipstream-compatible status and explorer reads,
 * the status stream's first frame)
 * for every txid the run has seen is searched for the private txids that
 * are neither accepted here nor mined; so is every submission's answer.
 */

type Step = 'private' | 'portal' | 'replace-privately' | 'replace-here' | 'package-over-private' | 'probe' | 'mine';
const STEPS: Step[] = ['private', 'portal', 'replace-privately', 'replace-here', 'package-over-private', 'probe', 'mine'];

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(120);
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`no public answer names a private transaction (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    let base: string;
    /** Status frames read from streams: the property looked at real answers, not only refusals. */
    let statusFrames = 0;
    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    /** The status stream's first frame for `txid`, or its refusal (a 404 for a transaction it may not describe). */
    async function firstStreamFrame(txid: string): Promise<string> {
      let stream: SseConnection;
      try {
        stream = await openEventStream(`${base}/rest-api/status-stream?tx_id=${txid}`);
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
      try {
        const frame = await stream.waitFor((f) => f.kind === 'event' && f.event === 'status', { timeoutMs: 10_000 });
        if (frame.kind === 'event' && frame.event === 'status') statusFrames++;
        return frame.kind === 'event' ? frame.data : '';
      } finally {
        stream.close();
      }
    }
    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('random schedules of private and portal transactions, replacements, packages, probes and blocks', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...STEPS), { minLength: 4, maxLength: 9 }), async (steps) => {
          /** Sent to the node directly, and not (yet) mined. */
          const hidden = new Map<string, BuiltTx>();
          /** Submitted through the portal and accepted. */
          const portal = new Map<string, BuiltTx>();
          const seen = new Set<string>();
          const answers: string[] = [];

          const sendPrivately = async (tx: BuiltTx) => {
            await node.rpc.call('sendrawtransaction', [tx.hex]);
            hidden.set(tx.txid, tx);
            seen.add(tx.txid);
          };
          const submitHere = async (path: string, body: object) => {
            const res = await post<{ status?: string }>(t.app, path, body);
            answers.push(JSON.stringify(res.body));
            return res;
          };
          const pick = <T>(m: Map<string, T>): T | undefined => [...m.values()][0];

          for (const step of steps) {
            switch (step) {
              case 'private':
                await sendPrivately(await node.buildTx({ feeRate: 5 }));
                break;
              case 'portal': {
                const tx = await node.buildTx({ feeRate: 4 });
                const res = await submitHere('/rest-api/submit-tx', { tx_hex: tx.hex });
                if (res.body.status === 'success') portal.set(tx.txid, tx);
                seen.add(tx.txid);
                break;
              }
              case 'replace-privately': {
                const original = pick(portal);
                if (!original) break;
                portal.delete(original.txid);
                await sendPrivately(await node.buildReplacement(original.hex, 40));
                break;
              }
              case 'replace-here': {
                const original = pick(hidden);
                if (!original) break;
                const replacement = await node.buildReplacement(original.hex, 40);
                const res = await submitHere('/rest-api/submit-tx', { tx_hex: replacement.hex });
                if (res.body.status === 'success') portal.set(replacement.txid, replacement);
                seen.add(replacement.txid);
                break;
              }
              case 'package-over-private': {
                const original = pick(hidden);
                if (!original) break;
                const parent = await node.buildReplacement(original.hex, 60);
                const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 60 });
                const res = await submitHere('/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
                if (res.body.status === 'success') for (const tx of [parent, child]) portal.set(tx.txid, tx);
                seen.add(parent.txid).add(child.txid);
                break;
              }
              case 'probe': {
                const target = pick(hidden);
                if (!target) break;
                // The stranger spends the same outpoint as the private transaction, without a key, and polls as the node judges it.
                const input = decodeTxHex(target.hex).inputs[0]!;
                const coin = await node.rpc.call<{ value: number } | null>('gettxout', [input.txid, input.vout, false]);
                if (!coin) break;
                const probe = unsignedSpendOf(input.txid, input.vout, Math.round(coin.value * 1e8));
                const probeTxid = decodeTxHex(probe).txid;
                seen.add(probeTxid);
                const polls = Array.from({ length: 12 }, () => get(t.app, `/rest-api/status-check?tx_id=${probeTxid}`));
                await submitHere('/rest-api/submit-tx', { tx_hex: probe });
                for (const res of await Promise.all(polls)) answers.push(JSON.stringify(res.body));
                break;
              }
              case 'mine': {
                // Mined is public: those in the block may be named from now on; a replaced one never will be mined.
                const [hash] = await node.mine(1);
                const block = await node.rpc.call<{ tx: string[] }>('getblock', [hash, 1]);
                for (const txid of block.tx) hidden.delete(txid);
                break;
              }
            }

            // Every public read of every txid seen so far.
            await t.records.idle();
            for (const txid of seen) {
              for (const path of [`/rest-api/status-check?tx_id=${txid}`, `/api/transactions/status?tx_id=${txid}`, `/api/tx/${txid}`, `/api/tx/${txid}/status`]) {
                answers.push(JSON.stringify((await get(t.app, path)).body));
              }
              answers.push(await firstStreamFrame(txid));
            }
            const secret = [...hidden.keys()].filter((txid) => !portal.has(txid));
            for (const answer of answers.splice(0)) {
              for (const txid of secret) assert.ok(!answer.includes(txid), `after ${steps.join(', ')}: an answer names the private ${txid}: ${answer.slice(0, 400)}`);
            }
          }
        }),
        { numRuns: 6, seed: 20261127, endOnFailure: true },
      );
      assert.ok(statusFrames > 0, 'some streams answered with a status');
    });
  });
}
