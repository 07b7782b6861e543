import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { startTestNode } from '../test/helpers/regtest.ts';
import { openEventStream, type SseFrame } from '../test/helpers/sse-client.ts';
import { testDatabases } from '../test/helpers/test-db.ts';
import { noopAuditWriter, startPortal } from './portal.ts';
import { median, ms, percentile, ratio, round3 } from './stats.ts';

/**
 * Status-page update latency: from a block being mined (generatetoaddress
 * returns) to a client of GET /rest-api/status-stream receiving the
 * transaction's new status (confirmed). The baseline, measured in the same
 * run on the same blocks: GET /rest-api/status-check polled back to back,
 * the soonest any client could learn it from the portal. The ratio is what
 * the stream adds over that floor (its wait for the engine's feed, its
 * throttle). For reference, the /mempool/ dashboard stream showing the same
 * block. Each sample waits for the streams' one-second throttle windows to
 * pass first, so a sample is one block's latency, not the rest of a window.
 */
const SAMPLES = 20;
/** Longer than both streams' one-second throttle. */
const SETTLE_MS = 1_200;

const sleep = (msToWait: number) => new Promise<void>((resolve) => setTimeout(resolve, msToWait));

export async function runStatusStreamBench(): Promise<unknown> {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const node = await startTestNode();
  const db = await testDatabases().at(-1)!.open();
  const rpc = createRpcClient({ url: node.rpcUrl, auth: { kind: 'cookie', cookieFile: node.cookieFile }, timeoutMs: 60_000, maxConcurrency: 8 });
  // The dashboard stream is open to everyone when the operator says so; here, for the baseline.
  await db.query("UPDATE settings SET value = 'true' WHERE item = 'public_mempool_view'");
  const portal = await startPortal({ db, rpc, audit: noopAuditWriter, zmqUrl: node.zmqSequenceUrl });
  try {
    await node.ensureUtxos(SAMPLES + 2);
    const dashboard = await openEventStream(`${portal.baseUrl}/mempool/api/stream`);
    const statusMs: number[] = [];
    const dashboardMs: number[] = [];
    const pollMs: number[] = [];
    const pollUntilConfirmed = async (txid: string, started: number) => {
      for (;;) {
        const answer = (await (await fetch(`${portal.baseUrl}/rest-api/status-check?tx_id=${txid}`)).json()) as { state: string };
        if (answer.state === 'confirmed') return pollMs.push(performance.now() - started);
      }
    };
    try {
      for (let k = 0; k < SAMPLES; k++) {
        const tx = await node.buildTx({ feeRate: 3 });
        const submitted = await fetch(`${portal.baseUrl}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex }) });
        if (submitted.status !== 200) throw new Error(`submission refused: ${await submitted.text()}`);
        const stream = await openEventStream(`${portal.baseUrl}/rest-api/status-stream?tx_id=${tx.txid}`);
        try {
          const isStatus = (state: string) => (f: SseFrame) => f.kind === 'event' && f.event === 'status' && (JSON.parse(f.data) as { state: string }).state === state;
          await stream.waitFor(isStatus('in_mempool'));
          await sleep(SETTLE_MS);
          const height = (await rpc.call<number>('getblockcount')) + 1;
          const from = dashboard.frames.length;
          const started = performance.now();
          const mined = node.mine(1);
          const polled = pollUntilConfirmed(tx.txid, started);
          await mined;
          await Promise.all([
            polled,
            stream.waitFor(isStatus('confirmed'), { timeoutMs: 30_000 }).then(() => statusMs.push(performance.now() - started)),
            dashboard
              .waitFor((f) => f.kind === 'event' && f.event === 'state' && (JSON.parse(f.data) as { recentBlocks: Array<{ height: number }> }).recentBlocks[0]?.height === height, { from, timeoutMs: 30_000 })
              .then(() => dashboardMs.push(performance.now() - started)),
          ]);
        } finally {
          stream.close();
        }
      }
    } finally {
      dashboard.close();
    }
    const summary = {
      samples: SAMPLES,
      statusStream: { p50: round3(median(statusMs)), p95: round3(percentile(statusMs, 95)) },
      dashboardStream: { p50: round3(median(dashboardMs)), p95: round3(percentile(dashboardMs, 95)) },
      pollFloor: { p50: round3(median(pollMs)), p95: round3(percentile(pollMs, 95)) },
      ratioP50: round3(median(statusMs) / median(pollMs)),
    };
    out(`status-page update latency, block mined → status stream says confirmed (${SAMPLES} blocks):`);
    out(`  /rest-api/status-stream  p50 ${ms(median(statusMs))}, p95 ${ms(percentile(statusMs, 95))}`);
    out(`  baseline: status-check polled back to back  p50 ${ms(median(pollMs))}, p95 ${ms(percentile(pollMs, 95))}`);
    out(`  ratio to the baseline (p50) ${ratio(summary.ratioP50)}`);
    out(`  for reference, /mempool/api/stream shows the block  p50 ${ms(median(dashboardMs))}, p95 ${ms(percentile(dashboardMs, 95))}`);
    return summary;
  } finally {
    await portal.close();
    await db.close();
    await node.stop();
  }
}
