import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NODE_CALLS } from '../src/http/node-call-budget.ts';
import { QUOTE_INVALID_MESSAGE, QUOTE_NEEDS_CLIENT_MESSAGE, QUOTE_NO_CLIENT_MESSAGE, QUOTE_OTHER_CLIENT_MESSAGE, quoteExpiredMessage, type Quote } from '../src/modules/quotes/quote-token.ts';
import { withdrawReceiptKeyByKid } from '../src/modules/receipts/receipt-keys.ts';
import { parseStaffCommand, runStaffCommand } from '../src/auth/staff-commands.ts';
import { RECEIPT_WITHDRAWN_KEY_MESSAGE } from '../src/modules/receipts/receipt-token.ts';
import { NOT_MINED_MESSAGE } from '../src/modules/receipts/receipts.service.ts';
import { FEE_TOO_LOW_MESSAGE } from '../src/modules/submission/submission.service.ts';
import { blockHashOf, checkInclusion, decodeReceipt, verifyReceipt, type Jwk, type ReceiptClaims } from '../../web/src/public/verify/receipt-check.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { TEST_AUTH_KEY } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Quotes that hold and receipts that prove (docs/behaviour.md#quotes-and-receipts), end to end on a
 * regtest node and each database engine: a quote honoured after the
 * minimum rose, refused expired, for another client code or altered; every
 * accepted submission's receipt, checked with the published keys only (the
 * /verify page's own code, web/src/public/verify/receipt-check.ts); and,
 * once mined, the node's merkle proof checked against the block header the
 * node gives, with nothing else.
 */

interface Answer {
  status: 'success' | 'error';
  message: string;
  receipt?: string;
  receipts?: Record<string, string>;
}
interface Rates {
  effective_rate: number;
  quote: Quote;
}
interface Proof {
  txid: string;
  block_hash: string;
  block_height: number;
  header: string;
  proof: string;
}

let node: TestNode;

/** The README's verify-receipt.mjs, as a reader would copy it. */
async function readmeScript(): Promise<string> {
  const readme = await readFile(path.join(import.meta.dirname, '../../README.md'), 'utf8');
  const block = /```js\n(\/\/ verify-receipt\.mjs[\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README has verify-receipt.mjs');
  return block[1]!;
}

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(40);
});
after(async () => node?.stop());

/** `receipt` with its payload rewritten by `change` and its header and signature kept: what an altered receipt looks like. */
function altered(receipt: string, change: (claims: Record<string, unknown>) => void): string {
  const [head, body, signature] = receipt.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(claims);
  return `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

for (const engine of testDatabases()) {
  describe(`quotes and receipts (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    /** Where the test's clock is, ahead of the system's. */
    let aheadMs = 0;
    const calls: Array<{ route: string; calls: string[] }> = [];

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db, {
        clock: { now: () => new Date(Date.now() + aheadMs) },
        authKey: TEST_AUTH_KEY,
        observeNodeCalls: (route, made) => calls.push({ route, calls: [...made] }),
      });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const jwks = async () => {
      const res = await get<{ keys: Jwk[] }>(t.app, '/.well-known/jwks.json');
      assert.equal(res.statusCode, 200);
      return res.body.keys;
    };
    const claimsOf = (receipt: string) => decodeReceipt(receipt).ok ? (decodeReceipt(receipt) as { value: { claims: ReceiptClaims } }).value.claims : assert.fail('not a receipt');
    const floor = async (value: string) => t.setSetting('fee_rate_floor', value);

    test('a quote from /api/rates and one from /rest-api/getinfo hold after the minimum rises: single and package, on both APIs, with the quote in the receipt and the audit trail', async () => {
      const rates = await get<Rates>(t.app, '/api/rates');
      const info = await get<{ fee_rate: number; quote: Quote }>(t.app, '/rest-api/getinfo');
      // An empty regtest mempool prices at the relay minimum: the floor (2 sat/vB) rules, and the quotes say so.
      assert.equal(rates.body.quote.threshold, 2);
      assert.equal(rates.body.quote.threshold, rates.body.effective_rate);
      assert.equal(info.body.quote.threshold, info.body.fee_rate);
      assert.equal('client_code' in rates.body.quote, false);
      const validity = Date.parse(rates.body.quote.expires_at) - Date.now();
      assert.ok(validity > 9 * 60_000 && validity <= 10 * 60_000, `valid for the default 10 minutes: ${validity} ms`);
      await floor('6');
      try {
        const txs = await Promise.all([3, 3, 3, 3].map((feeRate) => node.buildTx({ feeRate })));
        // Without the quote, refused: the minimum is 6 now.
        const plain = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: txs[0]!.hex });
        assert.deepEqual([plain.statusCode, plain.body.message], [422, FEE_TOO_LOW_MESSAGE]);

        const viaRest = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: txs[0]!.hex, quote_id: info.body.quote.quote_id });
        assert.deepEqual([viaRest.statusCode, viaRest.body.status, viaRest.body.message], [200, 'success', txs[0]!.txid]);
        const viaApi = await post<Answer>(t.app, '/api/transactions', { tx_hex: txs[1]!.hex, quote_id: rates.body.quote.quote_id });
        assert.deepEqual([viaApi.statusCode, viaApi.body.status, viaApi.body.message], [200, 'success', txs[1]!.txid]);
        for (const [answer, tx, quote] of [[viaRest, txs[0]!, info.body.quote], [viaApi, txs[1]!, rates.body.quote]] as const) {
          const claims = claimsOf(answer.body.receipt!);
          assert.deepEqual({ ...claims, accepted_at: typeof claims.accepted_at }, {
            v: 1, pool: 'Slipstream', network: 'regtest', txid: tx.txid, wtxid: (await node.rpc.call<{ wtxid: string }>('getmempoolentry', [tx.txid])).wtxid,
            fee: tx.fee, vsize: tx.vsize, threshold: 2, quote: { quote_id: quote.quote_id, threshold: 2, expires_at: quote.expires_at }, accepted_at: 'string',
          });
        }

        // The preview and the dry run judge as the submission would: at the quote's minimum while it holds.
        type Parsed = { transactions: Array<{ meets_minimum_fee: boolean }> };
        const preview = async (quote?: string) => (await post<Parsed>(t.app, '/rest-api/parse-tx', { tx_hexes: [txs[2]!.hex], ...(quote ? { quote_id: quote } : {}) })).body.transactions[0]!.meets_minimum_fee;
        assert.deepEqual([await preview(), await preview(info.body.quote.quote_id), await preview('q1.altered.quote')], [false, true, false]);
        const dry = async (quote?: string) => post<Answer>(t.app, '/api/transactions', { tx_hex: txs[2]!.hex, skip_mempool_submission: true, ...(quote ? { quote_id: quote } : {}) });
        assert.deepEqual([(await dry()).statusCode, (await dry(rates.body.quote.quote_id)).statusCode], [400, 200]);

        // A package (a parent and its child) under the quote, on both APIs: a receipt for each member.
        for (const [url, quote] of [['/rest-api/submit-package', info.body.quote], ['/api/transactions/packages', rates.body.quote]] as const) {
          const parent = await node.buildTx({ feeRate: 3 });
          const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 3 });
          const refused = await post<Answer>(t.app, url, { tx_hexes: [parent.hex, child.hex] });
          assert.ok(refused.statusCode >= 400, `${url} without the quote: ${JSON.stringify(refused.body)}`);
          const held = await post<Answer>(t.app, url, { tx_hexes: [parent.hex, child.hex], quote_id: quote.quote_id });
          assert.equal(held.statusCode, 200, JSON.stringify(held.body));
          assert.deepEqual(Object.keys(held.body.receipts ?? {}).sort(), [parent.txid, child.txid].sort());
          for (const member of [parent, child]) {
            const claims = claimsOf(held.body.receipts![member.txid]!);
            assert.deepEqual([claims.txid, claims.fee, claims.threshold, claims.quote?.quote_id], [member.txid, member.fee, 2, quote.quote_id]);
          }
        }

        // The submission's audit row holds the quote it named and the receipt it got.
        await t.audit.flush();
        const { rows } = await db.query<{ request_payload: string }>(
          "SELECT request_payload FROM audit_logs WHERE endpoint = '/api/transactions' AND is_success AND strpos(response_payload, $1) > 0",
          [viaApi.body.receipt!],
        );
        assert.equal(rows.length, 1, 'the submission\'s row holds its receipt');
        assert.ok(rows[0]!.request_payload.includes(rates.body.quote.quote_id), 'and the quote it named');
      } finally {
        await floor('2');
      }
    });

    test('a quote is refused once expired, for another client code or none, and when altered, with a clear message on both APIs', async () => {
      const coded = (await get<Rates>(t.app, '/api/rates?client_code=ALPHA')).body.quote;
      const plain = (await get<{ quote: Quote }>(t.app, '/rest-api/getinfo')).body.quote;
      assert.equal(coded.client_code, 'ALPHA');
      const tx = await node.buildTx({ feeRate: 3 });
      const submit = async (quote: string, clientCode?: string) => {
        const body = { tx_hex: tx.hex, quote_id: quote, ...(clientCode ? { client_code: clientCode } : {}) };
        const [rest, api] = [await post<Answer>(t.app, '/rest-api/submit-tx', body), await post<Answer>(t.app, '/api/transactions', body)];
        assert.deepEqual([rest.statusCode, api.statusCode, api.body.message], [422, 400, rest.body.message]);
        return rest.body.message;
      };
      assert.equal(await submit(coded.quote_id, 'BRAVO'), QUOTE_OTHER_CLIENT_MESSAGE);
      assert.equal(await submit(coded.quote_id), QUOTE_NEEDS_CLIENT_MESSAGE);
      assert.equal(await submit(plain.quote_id, 'ALPHA'), QUOTE_NO_CLIENT_MESSAGE);
      const [prefix, payload, tag] = plain.quote_id.split('.') as [string, string, string];
      const body = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { t: number };
      const cheaper = `${prefix}.${Buffer.from(JSON.stringify({ ...body, t: 0.5 })).toString('base64url')}.${tag}`;
      assert.equal(await submit(cheaper), QUOTE_INVALID_MESSAGE);
      // Ten minutes on (the setting's default), the quote has expired.
      aheadMs = 10 * 60_000;
      try {
        assert.equal(await submit(plain.quote_id), quoteExpiredMessage(new Date(plain.expires_at)));
      } finally {
        aheadMs = 0;
      }
      // A refused quote refuses the submission whatever it pays; the same transaction with a good one is taken.
      assert.equal((await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, quote_id: plain.quote_id })).statusCode, 200);
      // The validity is the setting's: a quote issued under a 1-minute setting is refused a minute on.
      await t.setSetting('quote_validity_minutes', '1');
      try {
        const short = (await get<Rates>(t.app, '/api/rates')).body.quote;
        assert.ok(Date.parse(short.expires_at) - Date.now() <= 60_000);
        aheadMs = 61_000;
        const other = await node.buildTx({ feeRate: 3 });
        const late = await post<Answer>(t.app, '/api/transactions', { tx_hex: other.hex, quote_id: short.quote_id });
        assert.deepEqual([late.statusCode, late.body.message], [400, quoteExpiredMessage(new Date(short.expires_at))]);
      } finally {
        aheadMs = 0;
        await t.setSetting('quote_validity_minutes', '10');
      }
    });

    test('quotes are signed, not stored: asking for many writes no row anywhere but the audit trail', async () => {
      const tables = (await db.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'audit%'")).rows.map((r) => r.name);
      const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (name) => [name, (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`)).rows[0]!.n] as const)));
      await t.records.idle();
      const before = await counts();
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) ids.add((await get<Rates>(t.app, `/api/rates?client_code=C${i}`)).body.quote.quote_id);
      assert.equal(ids.size, 40);
      assert.deepEqual(await counts(), before);
    });

    test('a receipt verifies with the published key alone, and fails when any field of it changes', async () => {
      const tx = await node.buildTx({ feeRate: 4 });
      const answer = await post<Answer>(t.app, '/api/transactions', { tx_hex: tx.hex });
      const receipt = answer.body.receipt!;
      const keys = await jwks();
      const verified = await verifyReceipt(receipt, keys);
      assert.ok(verified.ok, JSON.stringify(verified));
      assert.equal(verified.value.txid, tx.txid);
      assert.equal(verified.value.quote, null);
      assert.equal(verified.value.threshold, 2);
      const changes: Record<string, (c: Record<string, unknown>) => void> = {
        v: (c) => (c.v = 2),
        pool: (c) => (c.pool = 'Another pool'),
        network: (c) => (c.network = 'mainnet'),
        txid: (c) => (c.txid = 'f'.repeat(64)),
        wtxid: (c) => (c.wtxid = 'e'.repeat(64)),
        fee: (c) => (c.fee = (c.fee as number) + 1),
        vsize: (c) => (c.vsize = (c.vsize as number) - 1),
        threshold: (c) => (c.threshold = 1),
        quote: (c) => (c.quote = { quote_id: 'q1.x.y', threshold: 1, expires_at: new Date().toISOString() }),
        accepted_at: (c) => (c.accepted_at = new Date(0).toISOString()),
        'an added field': (c) => (c.note = 'paid'),
      };
      for (const [field, change] of Object.entries(changes)) {
        const forged = altered(receipt, change);
        const checked = await verifyReceipt(forged, keys);
        assert.equal(checked.ok, false, `${field} changed, still verifies`);
        // The pool refuses it too, before any node call.
        calls.length = 0;
        const proof = await post<{ message: string }>(t.app, '/api/receipts/proof', { receipt: forged });
        assert.equal(proof.statusCode, 400, field);
        assert.deepEqual(calls, [{ route: 'POST /api/receipts/proof', calls: [] }], `${field}: no node call`);
      }
      // The header and the signature are covered too.
      const [head, body, signature] = receipt.split('.') as [string, string, string];
      const otherHead = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(head, 'base64url').toString()), typ: 'JWT' })).toString('base64url');
      assert.equal((await verifyReceipt(`${otherHead}.${body}.${signature}`, keys)).ok, false);
      const flipped = Buffer.from(signature, 'base64url');
      flipped[10] = flipped[10]! ^ 1;
      assert.equal((await verifyReceipt(`${head}.${body}.${flipped.toString('base64url')}`, keys)).ok, false);
      // Another key under the same kid (a made-up JWK Set) does not verify it.
      const stranger = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const strangerKey = { ...(await crypto.subtle.exportKey('jwk', stranger.publicKey)), kid: keys[0]!.kid } as Jwk;
      const kid = (decodeReceipt(receipt) as { value: { header: { kid: string } } }).value.header.kid;
      assert.equal((await verifyReceipt(receipt, [{ ...strangerKey, kid }])).ok, false);
    });

    test('once mined, the proof verifies against the block header the node gives, using only the receipt and the header; before that, 404 with no node call', async () => {
      const tx = await node.buildTx({ feeRate: 5 });
      const { receipt } = (await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).body;
      calls.length = 0;
      const early = await post<{ message: string }>(t.app, '/api/receipts/proof', { receipt });
      assert.deepEqual([early.statusCode, early.body.message], [404, NOT_MINED_MESSAGE]);
      assert.deepEqual(calls, [{ route: 'POST /api/receipts/proof', calls: [] }]);

      const [blockHash] = await node.mine(1);
      calls.length = 0;
      const answer = await post<Proof>(t.app, '/api/receipts/proof', { receipt });
      assert.equal(answer.statusCode, 200, JSON.stringify(answer.body));
      assert.deepEqual(calls, [{ route: 'POST /api/receipts/proof', calls: ['gettxoutproof'] }]);
      assert.ok(calls[0]!.calls.length <= NODE_CALLS.receiptProof);
      assert.deepEqual([answer.body.txid, answer.body.block_hash, answer.body.block_height], [tx.txid, blockHash, await node.rpc.call<number>('getblockcount')]);

      // Offline: the receipt, the proof, and the header as the node itself gives it (not the portal's copy).
      const header = await node.rpc.call<string>('getblockheader', [blockHash, false]);
      const claims = claimsOf(receipt!);
      const included = await checkInclusion(claims, answer.body.proof, header);
      assert.ok(included.ok, JSON.stringify(included));
      assert.deepEqual(included.value.matched, [tx.txid]);
      assert.equal(await blockHashOf(header), blockHash);
      // The node's own check of the same proof agrees (an oracle nobody here wrote).
      assert.deepEqual(await node.rpc.call<string[]>('verifytxoutproof', [answer.body.proof]), [tx.txid]);
      // Another block's header, or a proof with a bit changed, does not pass.
      const otherHeader = await node.rpc.call<string>('getblockheader', [await node.rpc.call<string>('getblockhash', [1]), false]);
      assert.equal((await checkInclusion(claims, answer.body.proof, otherHeader)).ok, false);
      const bytes = Buffer.from(answer.body.proof, 'hex');
      bytes[bytes.length - 40] = bytes[bytes.length - 40]! ^ 0xff;
      assert.equal((await checkInclusion(claims, bytes.toString('hex'), header)).ok, false);
      assert.equal((await checkInclusion({ txid: 'a'.repeat(64) }, answer.body.proof, header)).ok, false);
    });

    test("the README's verify-receipt.mjs checks the same: signed, then mined in the node's block", async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'verify-receipt-'));
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      const portal = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      try {
        const script = path.join(dir, 'verify-receipt.mjs');
        await writeFile(script, await readmeScript());
        const run = async (receipt: string, header?: string) => {
          const file = path.join(dir, 'receipt.jws');
          await writeFile(file, `${receipt}\n`);
          const { stdout } = await promisify(execFile)(process.execPath, [script, portal, file, ...(header ? [header] : [])]).catch((error: { stdout: string }) => error);
          return stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
        };
        const tx = await node.buildTx({ feeRate: 4 });
        const receipt = (await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).body.receipt!;
        const early = await run(receipt);
        assert.deepEqual([early[0]!.signed, (early[0]!.claims as ReceiptClaims).txid, early[1]], [true, tx.txid, { proof: NOT_MINED_MESSAGE }]);
        const [hash] = await node.mine(1);
        const header = await node.rpc.call<string>('getblockheader', [hash, false]);
        const mined = await run(receipt, header);
        assert.deepEqual(mined[1], { block_height: await node.rpc.call<number>('getblockcount'), included: true, merkle_root_matches: true, header_is_the_block: true });
        // Against another block's header, the root does not match; an altered receipt is not signed.
        const other = await node.rpc.call<string>('getblockheader', [await node.rpc.call<string>('getblockhash', [1]), false]);
        assert.deepEqual([(await run(receipt, other))[1]!.merkle_root_matches, (await run(receipt, other))[1]!.header_is_the_block], [false, false]);
        assert.equal((await run(altered(receipt, (c) => (c.fee = 1))))[0]!.signed, false);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('rotation keeps old receipts valid; a withdrawn key\'s receipts fail everywhere', async () => {
      const first = (await post<Answer>(t.app, '/api/transactions', { tx_hex: (await node.buildTx({ feeRate: 4 })).hex })).body.receipt!;
      const firstKid = (decodeReceipt(first) as { value: { header: { kid: string } } }).value.header.kid;
      // As `npm run staff -- rotate-receipt-key` runs it (the channel checks the request as the CLI does).
      const staff = async (request: object) => runStaffCommand(db, async () => TEST_AUTH_KEY, parseStaffCommand(request));
      const rotatedLine = (await staff({ command: 'rotate-receipt-key' }))[0]!;
      const rotated = /new receipt signing key (receipt-[0-9a-f-]{36});/.exec(rotatedLine)?.[1];
      assert.ok(rotated, rotatedLine);
      const listed = await staff({ command: 'receipt-keys' });
      assert.match(listed.find((line) => line.startsWith(firstKid))!, /retired .* \(still published\)$/);
      assert.match(listed.find((line) => line.startsWith(rotated))!, /\tsigning$/);
      assert.throws(() => parseStaffCommand({ command: 'withdraw-receipt-key', kid: 'not-a-kid' }), /receipt key id/);
      const second = (await post<Answer>(t.app, '/api/transactions', { tx_hex: (await node.buildTx({ feeRate: 4 })).hex })).body.receipt!;
      assert.equal((decodeReceipt(second) as { value: { header: { kid: string } } }).value.header.kid, rotated, 'signed with the new key at once');
      let keys = await jwks();
      assert.deepEqual(keys.map((k) => k.kid).filter((k) => k === firstKid || k === rotated).sort(), [firstKid, rotated].sort(), 'the retired key is still published');
      assert.ok((await verifyReceipt(first, keys)).ok, 'a receipt of the retired key still verifies');
      assert.ok((await verifyReceipt(second, keys)).ok);

      assert.match((await staff({ command: 'withdraw-receipt-key', kid: firstKid }))[0]!, /^withdrew receipt-.*no longer published/);
      assert.deepEqual(await withdrawReceiptKeyByKid(db, TEST_AUTH_KEY, firstKid), { outcome: 'already', replacedBy: undefined });
      keys = await jwks();
      assert.equal(keys.some((k) => k.kid === firstKid), false, 'no longer published');
      assert.equal((await verifyReceipt(first, keys)).ok, false);
      assert.ok((await verifyReceipt(second, keys)).ok);
      const refused = await post<{ message: string }>(t.app, '/api/receipts/proof', { receipt: first });
      assert.deepEqual([refused.statusCode, refused.body.message], [400, RECEIPT_WITHDRAWN_KEY_MESSAGE]);
      // Withdrawing the signing key makes a new one.
      const again = await withdrawReceiptKeyByKid(db, TEST_AUTH_KEY, rotated);
      assert.ok(again.replacedBy);
      const third = (await post<Answer>(t.app, '/api/transactions', { tx_hex: (await node.buildTx({ feeRate: 4 })).hex })).body.receipt!;
      assert.equal((decodeReceipt(third) as { value: { header: { kid: string } } }).value.header.kid, again.replacedBy);
      assert.ok((await verifyReceipt(third, await jwks())).ok);
      assert.equal((await verifyReceipt(second, await jwks())).ok, false);
    });
  });
}
