import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { poolNodeP2pArgs } from '../dev/bitcoin/policy-node.ts';
import { startTestPolicyNode, type TestPolicyNode } from './helpers/policy-node.ts';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { rejectReasonEntry } from '../src/bitcoin/reject-reasons.ts';
import { DEFAULT_BYTES_PER_SIGOP } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { systemClock } from '../src/lib/clock.ts';
import { type PolicyOracle } from '../src/modules/policy/policy-oracle.ts';
import type { StandardVerdict } from '../src/modules/policy/policy.schemas.ts';
import { createEngineMarketSource } from '../src/modules/pricing/market-rate.ts';
import { createSubmissionService, type SubmissionService } from '../src/modules/submission/submission.service.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { post, quietLog } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * The standard-policy oracle on real nodes: a pool node with a permissive
 * policy, and beside it a node with Bitcoin Core's default policy following
 * its chain. parse-tx reports, per transaction, whether the public network
 * would relay it and why not; the pool still takes what its own policy allows.
 */

interface MempoolAccept {
  allowed?: boolean;
  'reject-reason'?: string;
}

describe('standard-policy oracle', () => {
  let pool: TestNode;
  let policy: TestPolicyNode;
  let knots: TestPolicyNode;
  let knotsOracle: PolicyOracle;
  let db: TestDatabase;
  let t: StaffTestApp;
  let oracle: PolicyOracle;
  let service: SubmissionService;

  before(async () => {
    const p2pPort = await freePort();
    pool = await startTestNode({
      // The pool's own policy: wider than Core's, as a pool taking direct submissions runs.
      extraArgs: [...poolNodeP2pArgs(p2pPort), '-datacarriersize=100000', '-permitbaremultisig=1', '-dustrelayfee=0', '-limitancestorcount=100', '-limitdescendantcount=100'],
    });
    policy = await startTestPolicyNode(p2pPort);
    oracle = policy.oracle;
    // Beside it, a follower with Knots' own defaults: the 'knots' verdict.
    knots = await startTestPolicyNode(p2pPort, { policy: 'knots' });
    knotsOracle = knots.oracle;
    // Postgres when TEST_DATABASE_URL is set, PGlite otherwise: the verdict columns are checked on both.
    db = await testDatabases().at(-1)!.open();
    t = await startStaffTestApp(db, pool, { policy: oracle });
    service = serviceWith(oracle);
  });

  after(async () => {
    await t?.close();
    await db?.close();
    await policy?.stop();
    await knots?.stop();
    await pool?.stop();
  });

  function serviceWith(policyOracle: PolicyOracle | undefined): SubmissionService {
    return createSubmissionService({
      db,
      rpc: t.rpc,
      market: createEngineMarketSource(t.mempool),
      settings: t.settings,
      records: t.records,
      clock: systemClock,
      log: quietLog,
      bytesPerSigop: DEFAULT_BYTES_PER_SIGOP,
      policy: policyOracle,
      knotsPolicy: policyOracle && knotsOracle,
    });
  }

  /** The oracle has the pool node's tip (builders mine blocks to make coins). */
  async function synced(): Promise<void> {
    const poolHeight = await pool.rpc.call<number>('getblockcount');
    await until(async () => (await policy.rpc.call<number>('getblockcount')) >= poolHeight, async () => `oracle at ${await policy.rpc.call<number>('getblockcount')}, pool at ${poolHeight}`);
    await until(async () => (await knots.rpc.call<number>('getblockcount')) >= poolHeight, async () => `Knots-policy node at ${await knots.rpc.call<number>('getblockcount')}, pool at ${poolHeight}`);
  }

  async function verdictOf(hexes: string[], which = hexes.length - 1): Promise<StandardVerdict | undefined> {
    await synced();
    const answer = await service.parse(hexes, undefined);
    return answer.transactions[which]!.standard;
  }

  function refusedFor(reason: string): StandardVerdict {
    const explanation = rejectReasonEntry(reason)?.plain;
    assert.ok(explanation, `an explanation for ${reason}`);
    return { verdict: 'non-standard', reason, explanation };
  }

  /** Submitted through the portal and taken by the pool node. */
  async function poolTakes(hex: string): Promise<void> {
    const answer = await service.submitTx(hex, undefined);
    assert.equal(answer.status, 'success');
    assert.ok(await pool.rpc.call('getmempoolentry', [decodeTxHex(hex).txid]));
  }

  /**
   * A signed transaction spending fresh wallet coins to `outputs` plus change,
   * paying `fee`; `scriptSigPrefix` is put before the first input's signed
   * scriptSig (a legacy signature does not cover it).
   */
  async function custom(o: { version?: number; outputs: { value: number; scriptPubKey: string }[]; legacy?: boolean; fee?: number; inputs?: number; scriptSigPrefix?: string }): Promise<string> {
    const base = decodeTxHex((await pool.buildTx({ feeRate: 2, addressType: o.legacy ? 'legacy' : 'bech32', inputs: o.inputs ?? 1 })).hex);
    const values = await Promise.all(base.inputs.map(async (i) => btcToSats((await pool.rpc.call<{ value: number }>('gettxout', [i.txid, i.vout])).value)));
    const total = values.reduce((a, b) => a + b, 0);
    const fee = o.fee ?? 20_000;
    const change = { value: total - fee - o.outputs.reduce((a, b) => a + b.value, 0), scriptPubKey: base.outputs[0]!.scriptPubKey };
    const unsigned = encodeTxHex({
      version: o.version ?? 2,
      locktime: 0,
      inputs: base.inputs.map((i) => ({ txid: i.txid, vout: i.vout, scriptSig: '', sequence: 0xffff_fffd })),
      outputs: [...o.outputs, change],
    });
    const signed = await pool.wallet.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [unsigned]);
    assert.ok(signed.complete);
    if (!o.scriptSigPrefix) return signed.hex;
    const d = decodeTxHex(signed.hex);
    return encodeTxHex({ ...d, inputs: d.inputs.map((i, k) => ({ ...i, scriptSig: k === 0 ? o.scriptSigPrefix + i.scriptSig : i.scriptSig })) });
  }

  test('a standard transaction is reported standard', async () => {
    const hex = await custom({ outputs: [] });
    assert.deepEqual(await verdictOf([hex]), { verdict: 'standard' });
    await poolTakes(hex);
  });

  test('version 4: non-standard (version), taken by the pool', async () => {
    const hex = await custom({ version: 4, outputs: [] });
    assert.deepEqual(await verdictOf([hex]), refusedFor('version'));
    // The same in POST /rest-api/parse-tx's answer.
    const res = await post<{ transactions: Array<{ standard?: StandardVerdict }> }>(t.app, '/rest-api/parse-tx', { tx_hexes: [hex] });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.body.transactions[0]!.standard, refusedFor('version'));
    await poolTakes(hex);
  });

  test('a dust output: non-standard (dust), taken by the pool', async () => {
    const hex = await custom({ outputs: [{ value: 1, scriptPubKey: `0014${'11'.repeat(20)}` }] });
    assert.deepEqual(await verdictOf([hex]), refusedFor('dust'));
    await poolTakes(hex);
  });

  test('the public API\'s judge-only paths carry the verdict: skip_mempool_submission and the dry run', async () => {
    const dust = await custom({ outputs: [{ value: 1, scriptPubKey: `0014${'22'.repeat(20)}` }] });
    const plain = await custom({ outputs: [] });
    await synced();
    const judged = await post<{ status: string; message: string; standard?: StandardVerdict }>(t.app, '/api/transactions', { tx_hex: dust, skip_mempool_submission: true });
    assert.deepEqual([judged.statusCode, judged.body.status, judged.body.message], [200, 'success', decodeTxHex(dust).txid]);
    assert.deepEqual(judged.body.standard, refusedFor('dust'));
    const dry = await t.app.inject({ method: 'POST', url: '/api/mempool/tests', payload: { tx_hexes: [plain] }, headers: { authorization: `Bearer ${t.tokens.viewer}` } });
    const results = dry.json<{ results: Array<{ allowed: boolean; standard: StandardVerdict }> }>().results;
    assert.deepEqual([dry.statusCode, results.map((r) => [r.allowed, r.standard])], [200, [[true, { verdict: 'standard' }]]]);
    const both = await t.app.inject({ method: 'POST', url: '/api/mempool/tests', payload: { tx_hexes: [plain, dust] }, headers: { authorization: `Bearer ${t.tokens.viewer}` } });
    assert.deepEqual(both.json<{ results: Array<{ standard: StandardVerdict }> }>().results.map((r) => r.standard), [{ verdict: 'standard' }, refusedFor('dust')]);
    // Judged only: neither is in the pool's mempool.
    for (const hex of [dust, plain]) await assert.rejects(pool.rpc.call('getmempoolentry', [decodeTxHex(hex).txid]));
  });

  test('a scriptSig that does more than push: non-standard (scriptsig-not-pushonly), taken by the pool', async () => {
    // OP_NOP before the signature and key of a P2PKH spend: still valid, no longer push-only.
    const hex = await custom({ legacy: true, outputs: [], scriptSigPrefix: '61' });
    assert.deepEqual(await verdictOf([hex]), refusedFor('scriptsig-not-pushonly'));
    await poolTakes(hex);
  });

  test('over 400,000 weight units: non-standard (tx-size), taken by the pool', async () => {
    const { hex } = await pool.buildOversize();
    assert.deepEqual(await verdictOf([hex]), refusedFor('tx-size'));
    await poolTakes(hex);
  });

  test('an OP_RETURN over 83 bytes: standard for Core 30 (the rules module, signatures checked), non-standard (scriptpubkey) for Core 29 (the node)', async () => {
    const hex = await custom({ outputs: [{ value: 0, scriptPubKey: `6a4c64${'ab'.repeat(100)}` }] });
    await synced();
    const [item] = (await service.parse([hex], undefined)).transactions;
    assert.deepEqual(item!.standard, { verdict: 'standard' });
    assert.deepEqual(item!.policies?.slice(0, 2).map((p) => [p.policy, p.relays, p.reason]), [['core', true, undefined], ['core-29', false, 'scriptpubkey']]);
    // Knots refuses it too, for its own reason (an output script over 83 bytes).
    assert.deepEqual([item!.policies?.[2]?.policy, item!.policies?.[2]?.relays], ['knots', false]);
    await poolTakesUnlessOutputSizeRule(hex);
  });

  test('0.5 sat/vB: Core 30 and 29.1 relay it (0.1 sat/vB floor), Knots\' defaults refuse it (1 sat/vB), each policy judged by its own node', async () => {
    const { hex } = await pool.buildTx({ feeRate: 0.5 });
    await synced();
    const [item] = (await service.parse([hex], undefined)).transactions;
    assert.deepEqual(item!.policies?.map((p) => [p.policy, p.relays, p.reason]), [['core', true, undefined], ['core-29', true, undefined], ['knots', false, 'min relay fee not met']]);
    assert.deepEqual(item!.standard, { verdict: 'standard' });
  });

  test('a bare multisig of 4 keys: non-standard (scriptpubkey; Core relays bare multisig of up to 3)', async () => {
    const key = (n: number) => `02${createHash('sha256').update(String(n)).digest('hex')}`;
    const hex = await custom({ outputs: [{ value: 1_000, scriptPubKey: `51${[1, 2, 3, 4].map((n) => `21${key(n)}`).join('')}54ae` }] });
    assert.deepEqual(await verdictOf([hex]), refusedFor('scriptpubkey'));
    await poolTakesUnlessOutputSizeRule(hex);
  });

  /**
   * This Knots refuses any output script over 34 bytes (83 for OP_RETURN) in
   * its mempool whatever its policy flags say (sigops.oracle.test.ts); a
   * Bitcoin Core pool node (BITCOIND=…) with -datacarriersize and
   * -permitbaremultisig takes it.
   */
  async function poolTakesUnlessOutputSizeRule(hex: string): Promise<void> {
    const [accept] = await pool.rpc.call<MempoolAccept[]>('testmempoolaccept', [[hex], 0]);
    if (accept?.allowed) return poolTakes(hex);
    assert.equal(accept?.['reject-reason'], 'bad-txns-vout-script-toolarge');
  }

  test('over 16,000 sigop cost: non-standard (bad-txns-too-many-sigops), which no Core or Knots mempool takes', async () => {
    // P2WSH inputs whose witness scripts run 700 empty CHECKMULTISIGs each (20 sigops apiece): 28,000 sigop cost, every part of it standard.
    const script = `${'000000ae75'.repeat(700)}51`;
    const p2wsh = `0020${createHash('sha256').update(Buffer.from(script, 'hex')).digest('hex')}`;
    const funding = await custom({ outputs: [{ value: 100_000, scriptPubKey: p2wsh }, { value: 100_000, scriptPubKey: p2wsh }] });
    await pool.rpc.call('sendrawtransaction', [funding]);
    await pool.mine();
    const fundingTxid = decodeTxHex(funding).txid;
    const hex = encodeTxHex({
      version: 2,
      locktime: 0,
      inputs: [0, 1].map((vout) => ({ txid: fundingTxid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: [script] })),
      outputs: [{ value: 150_000, scriptPubKey: `0014${'22'.repeat(20)}` }],
    });
    assert.deepEqual(await verdictOf([hex]), refusedFor('bad-txns-too-many-sigops'));
    // Core refuses it in any mempool (validation.cpp PreChecks checks MAX_STANDARD_TX_SIGOPS_COST whatever -acceptnonstdtxn says).
    const [accept] = await pool.rpc.call<MempoolAccept[]>('testmempoolaccept', [[hex], 0]);
    assert.equal(accept?.['reject-reason'], 'bad-txns-too-many-sigops');
  });

  test('a child of 25 unconfirmed portal transactions: non-standard (over the chain limits), taken by the pool', async () => {
    let parent = await pool.buildTx({ feeRate: 5 });
    await poolTakes(parent.hex);
    for (let i = 1; i < 25; i++) {
      parent = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      await poolTakes(parent.hex);
    }
    await t.records.idle();
    const child = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
    assert.deepEqual(await verdictOf([child.hex]), refusedFor('too-long-mempool-chain'));
    // Its parent, with one ancestor fewer, is within Core's limits: judged with its 24 ancestors, it is standard.
    assert.deepEqual(await verdictOf([parent.hex]), { verdict: 'standard' });
    await poolTakes(child.hex);
  });

  test('a child of an unconfirmed portal transaction is judged with it: standard', async () => {
    const parent = await pool.buildTx({ feeRate: 5 });
    await poolTakes(parent.hex);
    await t.records.idle();
    const child = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
    assert.deepEqual(await verdictOf([child.hex]), { verdict: 'standard' });
  });

  test('a child of a portal transaction recorded as refused under Core 30 is refused with it, for Core 30 only; a parent below the floor is left to the node', async () => {
    // The Core 29 node takes what only Core 30 refuses (BIP54: over 2,500 legacy sigops), so such a parent is
    // standard to it; the portal's recorded Core 30 verdict on the parent is what says so.
    const parent = await pool.buildTx({ feeRate: 5 });
    await poolTakes(parent.hex);
    await t.records.idle();
    const parentTxid = decodeTxHex(parent.hex).txid;
    const child = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
    const policiesOf = async () => {
      await synced();
      const item = (await service.parse([child.hex], undefined)).transactions[0]!;
      return { standard: item.standard, policies: Object.fromEntries((item.policies ?? []).map((p) => [p.policy, p.relays])) };
    };
    assert.deepEqual((await policiesOf()).policies, { core: true, 'core-29': true, knots: true });
    await db.query(`UPDATE tx_submissions SET standard_verdict = 'non-standard', standard_reason = 'bad-txns-nonstandard-inputs' WHERE txid = $1`, [parentTxid]);
    const refused = await policiesOf();
    assert.deepEqual(refused.policies, { core: false, 'core-29': true, knots: true });
    assert.equal(refused.standard?.reason, 'bad-txns-nonstandard-inputs');
    assert.match(refused.standard?.explanation ?? '', new RegExp(`ancestor ${parentTxid} is refused`));
    // Below the relay floor, a parent may still travel with a child that pays for it: that is the node's to judge.
    await db.query(`UPDATE tx_submissions SET standard_reason = 'min relay fee not met' WHERE txid = $1`, [parentTxid]);
    assert.deepEqual((await policiesOf()).policies, { core: true, 'core-29': true, knots: true });
  });

  test('a chain listed child first is judged parents first: every member standard', async () => {
    const a = await pool.buildTx({ feeRate: 5 });
    const b = await pool.buildChild({ parentHex: a.hex, vout: 0, feeRate: 5 });
    const c = await pool.buildChild({ parentHex: b.hex, vout: 0, feeRate: 5 });
    const list = [c.hex, b.hex, a.hex];
    for (const which of [0, 1, 2]) assert.deepEqual(await verdictOf(list, which), { verdict: 'standard' }, `member ${which}`);
  });

  test('a child whose parent in the same list is non-standard: refused for its parent', async () => {
    const parent = await custom({ version: 4, outputs: [] });
    const child = await pool.buildChild({ parentHex: parent, vout: 0, feeRate: 5 });
    const verdict = await verdictOf([parent, child.hex]);
    assert.equal(verdict?.verdict, 'non-standard');
    assert.equal(verdict?.reason, 'version');
    assert.match(verdict?.explanation ?? '', new RegExp(`ancestor ${decodeTxHex(parent).txid} is refused`));
  });

  /** The verdict kept on the submission's row (migration 018), once the background judgement is done. */
  async function recordedVerdict(hex: string): Promise<{ standard_verdict: string | null; standard_reason: string | null }> {
    await t.records.idle();
    const { rows } = await db.query<{ standard_verdict: string | null; standard_reason: string | null }>('SELECT standard_verdict, standard_reason FROM tx_submissions WHERE txid = $1', [decodeTxHex(hex).txid]);
    assert.equal(rows.length, 1);
    return rows[0]!;
  }

  test('an accepted submission keeps its verdict, and the metrics count non-standard ones by reason', async () => {
    const standard = await custom({ outputs: [] });
    const dust = await custom({ outputs: [{ value: 1, scriptPubKey: `0014${'33'.repeat(20)}` }] });
    const minRelay = await custom({ outputs: [], fee: 5 });
    await synced();
    for (const hex of [standard, dust]) await poolTakes(hex);
    assert.deepEqual(await recordedVerdict(standard), { standard_verdict: 'standard', standard_reason: null });
    assert.deepEqual(await recordedVerdict(dust), { standard_verdict: 'non-standard', standard_reason: 'dust' });
    // Under Core's minimum relay fee rate: refused by public nodes; under the portal's minimum too, so not submitted here.
    const [verdict] = (await service.parse([minRelay], undefined)).transactions;
    assert.deepEqual(verdict!.standard, refusedFor('min relay fee not met'));
    const { rows } = await db.query<{ reason: string; n: number }>("SELECT standard_reason AS reason, count(*)::int AS n FROM tx_submissions WHERE standard_verdict = 'non-standard' GROUP BY 1");
    const scrape = await t.services.metricsService.scrape();
    for (const { reason, n } of rows) assert.match(scrape, new RegExp(`^slipstream_nonstandard_submissions\\{reason="${reason}"\\} ${n}$`, 'm'));
    assert.ok(rows.some((r) => r.reason === 'dust' && r.n >= 1));
  });

  test('an accepted package keeps one verdict, non-standard when a member is; TX Reports and the metrics count it', async () => {
    const standardParent = await custom({ outputs: [] });
    const standardChild = await pool.buildChild({ parentHex: standardParent, vout: 0, feeRate: 5 });
    const refusedParent = await custom({ version: 4, outputs: [] });
    const refusedChild = await pool.buildChild({ parentHex: refusedParent, vout: 0, feeRate: 5 });
    await synced();
    for (const members of [[standardParent, standardChild.hex], [refusedParent, refusedChild.hex]]) {
      const answer = await service.submitPackage(members, undefined);
      assert.equal(answer.status, 'success', JSON.stringify(answer));
    }
    await t.records.idle();
    const packageVerdict = async (hex: string) =>
      (await db.query<{ standard_verdict: string | null; standard_reason: string | null }>('SELECT standard_verdict, standard_reason FROM package_submissions WHERE $1 = ANY(txids)', [decodeTxHex(hex).txid])).rows;
    assert.deepEqual(await packageVerdict(standardChild.hex), [{ standard_verdict: 'standard', standard_reason: null }]);
    assert.deepEqual(await packageVerdict(refusedChild.hex), [{ standard_verdict: 'non-standard', standard_reason: 'version' }]);

    const report = await t.call<{ result: Array<{ kind: string; txid: string | string[]; public_network: string | null }> }>('GET', '/rest-api/tx-reports/list', { query: { limit: '100' } });
    const ofPackage = (hex: string) => report.body.result.find((row) => row.kind === 'package' && row.txid.includes(decodeTxHex(hex).txid))?.public_network;
    assert.deepEqual([ofPackage(standardChild.hex), ofPackage(refusedChild.hex)], ['standard', 'non-standard: version']);
    // Per relay policy too: the Knots-policy node refuses version 4 as well.
    const byPolicy = (report.body.result as Array<{ kind: string; txid: string | string[]; public_network_by_policy?: string | null }>).find((row) => row.kind === 'package' && row.txid.includes(decodeTxHex(refusedChild.hex).txid))?.public_network_by_policy;
    assert.equal(byPolicy, 'core: non-standard (version); core-29: non-standard (version); knots: non-standard (version)');

    const counted = await db.query<{ n: number }>(
      "SELECT ((SELECT count(*) FROM tx_submissions WHERE standard_reason = 'version') + (SELECT count(*) FROM package_submissions WHERE standard_reason = 'version'))::int AS n",
    );
    assert.match(await t.services.metricsService.scrape(), new RegExp(`^slipstream_nonstandard_submissions\\{reason="version"\\} ${counted.rows[0]!.n}$`, 'm'));
  });

  test('without an oracle, or with one stopped: "unknown" where the scripts would decide, the rules\' refusals still told, and submissions still work', async () => {
    const hex = await custom({ outputs: [] });
    const version4 = await custom({ version: 4, outputs: [] });
    await synced();
    const none = await serviceWith(undefined).parse([hex, version4], undefined);
    assert.deepEqual(none.transactions[0]!.standard, { verdict: 'unknown' });
    // A rule that needs no node (policy.cpp IsStandardTx): refused by every Core policy, oracle or not.
    assert.deepEqual(none.transactions[1]!.standard, refusedFor('version'));
    await policy.stop();
    const answer = await service.parse([hex], undefined);
    assert.deepEqual(answer.transactions[0]!.standard, { verdict: 'unknown' });
    assert.equal(answer.transactions[0]!.meets_minimum_fee, true);
    await poolTakes(hex);
    assert.deepEqual(await recordedVerdict(hex), { standard_verdict: 'unknown', standard_reason: null });
  });
});
