import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '../db/database.ts';
import { DEFAULT_MIGRATIONS_DIR, migrate } from '../db/migrate.ts';
import type { Logger } from '../lib/logger.ts';
import { testDatabases } from '../../test/helpers/test-db.ts';
import { GENESIS, rowEncoding, verifyAuditChain, type ChainedRowContent } from './audit-chain.ts';
import { createAuditWriter, type AuditRow } from './audit-writer.ts';

/**
 * The audit trail's hash chain against real migrated databases (PGlite, and
 * Postgres when TEST_DATABASE_URL is set): the writer's JavaScript encoding
 * equals the migration's SQL one byte for byte, rows the writer appended
 * verify, and each kind of tampering is found at the row it touched, also at
 * the edges of the verification's batches. Concurrent writers on separate
 * connections append one chain; the migration chains the rows already there.
 */

const quiet: Logger = { info() {}, warn() {}, error() {} };
const NO_TIMER = 3_600_000;

function row(i: number, overrides: Partial<AuditRow> = {}): AuditRow {
  return {
    ipAddress: `10.0.${i >> 8}.${i & 255}`,
    endpoint: `/rest-api/test/${i}`,
    httpMethod: i % 3 ? 'GET' : 'POST',
    clientCode: i % 2 ? `CODE${i}` : null,
    requestAt: new Date(Date.UTC(2025, 2, 1) + i * 1_001),
    requestPayload: i % 4 ? `{"i":${i}}` : null,
    responsePayload: '{"status":"success"}',
    responseTimeMs: 0.1 * i + 0.003,
    errorMessage: i % 5 ? null : 'min relay fee not met',
    sourceType: i % 2 ? 'External' : 'Internal',
    isSuccess: i % 5 !== 0,
    ...overrides,
  };
}

/** Rows whose values sit where two encodings could disagree. */
const ODD_ROWS: Array<[string, Partial<AuditRow>]> = [
  ['every nullable column null', { ipAddress: '', endpoint: '', httpMethod: '', clientCode: null, requestPayload: null, responsePayload: null, errorMessage: null }],
  ['emoji, astral, right-to-left and combining text', { clientCode: 'Zoë 🚀 👩🏽‍💻', requestPayload: 'שלום عالم \u202Eevil\u202C 𝕳𝖊𝖑𝖑𝖔 \u{10FFFF} e\u0301' }],
  ['a NUL (stored escaped) and a lone surrogate (stored as U+FFFD)', { requestPayload: 'a\u0000b', responsePayload: 'x\uD800y' }],
  ['a long payload', { requestPayload: 'x'.repeat(100_000) }],
  ['doubles JavaScript and Postgres print differently', { responseTimeMs: 1e-7 }],
  ['a large double', { responseTimeMs: 1e21 }],
  ['negative zero', { responseTimeMs: -0 }],
  ['a whole number', { responseTimeMs: 42 }],
  ['a date before 1970', { requestAt: new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)) }],
  ['a date far ahead', { requestAt: new Date(Date.UTC(2999, 0, 1, 0, 0, 0, 1)) }],
  ['text that only a length prefix tells apart', { ipAddress: 'a', endpoint: 'bc' }],
  ['text that only a length prefix tells apart, shifted', { ipAddress: 'ab', endpoint: 'c' }],
];

async function writeRows(db: Database, rows: AuditRow[], batchSize = 500): Promise<void> {
  const writer = createAuditWriter(db, quiet, { flushIntervalMs: NO_TIMER, batchSize });
  for (const r of rows) writer.push(r);
  await writer.close();
  assert.equal(writer.stats().written, rows.length);
}

const ids = async (db: Database) => (await db.query<{ id: number }>('SELECT id FROM audit_logs ORDER BY id')).rows.map((r) => r.id);

for (const engine of testDatabases()) {
  describe(`audit hash chain (${engine.name})`, () => {
    test('the JavaScript encoding equals audit_log_encoding() byte for byte, on rows built to disagree', async () => {
      const db = await engine.open();
      try {
        await writeRows(db, ODD_ROWS.map(([, overrides], i) => row(i, overrides)));
        const { rows } = await db.query<{
          id: number; ip_address: string | null; endpoint: string | null; http_method: string | null; client_code: string | null; request_at: Date;
          request_payload: string | null; response_payload: string | null; response_time_ms: number | null; error_message: string | null;
          source_type: string | null; is_success: boolean; encoding: Uint8Array;
        }>('SELECT a.*, audit_log_encoding(a) AS encoding FROM audit_logs a ORDER BY id');
        assert.equal(rows.length, ODD_ROWS.length);
        for (const [i, r] of rows.entries()) {
          const content: ChainedRowContent = {
            id: r.id, ipAddress: r.ip_address, endpoint: r.endpoint, httpMethod: r.http_method, clientCode: r.client_code, requestAt: r.request_at,
            requestPayload: r.request_payload, responsePayload: r.response_payload, responseTimeMs: r.response_time_ms, errorMessage: r.error_message,
            sourceType: r.source_type, isSuccess: r.is_success,
          };
          assert.equal(rowEncoding(content).toString('hex'), Buffer.from(r.encoding).toString('hex'), ODD_ROWS[i]![0]);
        }
        // The two rows told apart only by the length prefix encode differently.
        assert.notEqual(Buffer.from(rows.at(-1)!.encoding).subarray(8).toString('hex'), Buffer.from(rows.at(-2)!.encoding).subarray(8).toString('hex'));
        const verified = await verifyAuditChain(db);
        assert.deepEqual({ ok: verified.ok, verified: verified.verified }, { ok: true, verified: ODD_ROWS.length });
      } finally {
        await db.close();
      }
    });

    test('an empty trail verifies; rows written in several batches verify, and the head names the newest', async () => {
      const db = await engine.open();
      try {
        assert.deepEqual(await verifyAuditChain(db), { ok: true, verified: 0, headId: null, headHash: GENESIS.toString('hex') });
        await writeRows(db, Array.from({ length: 23 }, (_, i) => row(i)), 5);
        const all = await ids(db);
        const { rows: [last] } = await db.query<{ row_hash: Uint8Array }>('SELECT row_hash FROM audit_logs ORDER BY id DESC LIMIT 1');
        for (const batchSize of [1, 4, 5, 22, 23, 1000]) {
          assert.deepEqual(await verifyAuditChain(db, { batchSize }), { ok: true, verified: 23, headId: all.at(-1), headHash: Buffer.from(last!.row_hash).toString('hex') }, `batches of ${batchSize}`);
        }
      } finally {
        await db.close();
      }
    });

    test('a changed row is found at its id, whichever column changed and wherever it sits in a batch', async () => {
      const db = await engine.open();
      try {
        await writeRows(db, Array.from({ length: 12 }, (_, i) => row(i)));
        const all = await ids(db);
        const changes = [
          "request_payload = '{\"i\":\"forged\"}'",
          'response_time_ms = response_time_ms + 1e-9',
          "request_at = request_at + interval '1 microsecond'",
          'is_success = NOT is_success',
          "client_code = coalesce(client_code, '') || 'x'",
          "ip_address = '10.9.9.9'",
          'row_hash = sha256(row_hash)',
          'prev_hash = sha256(prev_hash)',
        ];
        for (const [n, change] of changes.entries()) {
          // First, last, and the rows on each side of a batch of 4's edges.
          for (const index of [0, 3, 4, 11]) {
            const id = all[index]!;
            await db.transaction(async (tx) => {
              await tx.query(`UPDATE audit_logs SET ${change} WHERE id = $1`, [id]);
              const result = await verifyAuditChain(tx, { batchSize: 4 });
              assert.equal(result.ok, false, change);
              if (!result.ok) {
                assert.equal(result.reason, 'changed', `${change} at ${index}`);
                assert.equal(result.firstBrokenId, id, `${change} at ${index}`);
                assert.equal(result.verified, index, `${change} at ${index}`);
                assert.equal(result.lastIntactId, index === 0 ? null : all[index - 1], `${change} at ${index}`);
              }
              throw new Error(`rollback ${n}`);
            }).catch((error: unknown) => assert.match(String(error), /rollback/));
          }
        }
        assert.equal((await verifyAuditChain(db)).ok, true, 'every change was rolled back');
      } finally {
        await db.close();
      }
    });

    test('a removed row is found at the next one; removed newest rows against the head; rows not written by the writer as unchained', async () => {
      const db = await engine.open();
      try {
        await writeRows(db, Array.from({ length: 12 }, (_, i) => row(i)));
        const all = await ids(db);
        const attempt = async (what: string, sql: string | string[], params: unknown[], expected: { reason: string; firstBrokenId: number; lastIntactId: number | null }) => {
          await db.transaction(async (tx) => {
            for (const statement of Array.isArray(sql) ? sql : [sql]) await tx.query(statement, params);
            const result = await verifyAuditChain(tx, { batchSize: 4 });
            assert.equal(result.ok, false, what);
            if (!result.ok) assert.deepEqual({ reason: result.reason, firstBrokenId: result.firstBrokenId, lastIntactId: result.lastIntactId }, expected, what);
            throw new Error('rollback');
          }).catch((error: unknown) => assert.match(String(error), /rollback/));
        };
        await attempt('the first row removed', 'DELETE FROM audit_logs WHERE id = $1', [all[0]], { reason: 'removed', firstBrokenId: all[1]!, lastIntactId: null });
        await attempt('a middle row removed', 'DELETE FROM audit_logs WHERE id = $1', [all[4]], { reason: 'removed', firstBrokenId: all[5]!, lastIntactId: all[3]! });
        await attempt('three rows removed', 'DELETE FROM audit_logs WHERE id = ANY($1::bigint[])', [all.slice(3, 6)], { reason: 'removed', firstBrokenId: all[6]!, lastIntactId: all[2]! });
        await attempt('the newest row removed', 'DELETE FROM audit_logs WHERE id = $1', [all[11]], { reason: 'removed', firstBrokenId: all[11]!, lastIntactId: all[10]! });
        await attempt('every row removed', 'DELETE FROM audit_logs', [], { reason: 'removed', firstBrokenId: all[11]!, lastIntactId: null });
        await attempt(
          'two rows swapped',
          ['UPDATE audit_logs SET id = -$1::bigint WHERE id = $1 AND $2 > 0', 'UPDATE audit_logs SET id = $1 WHERE id = $2', 'UPDATE audit_logs SET id = $2 WHERE id = -$1::bigint'],
          [all[6], all[7]],
          { reason: 'changed', firstBrokenId: all[6]!, lastIntactId: all[5]! },
        );
        await attempt('hashes cleared', 'UPDATE audit_logs SET prev_hash = NULL, row_hash = NULL WHERE id = $1', [all[2]], { reason: 'unchained', firstBrokenId: all[2]!, lastIntactId: all[1]! });
        // A forged copy of the newest row, its hashes included, under an id of its own.
        await attempt(
          'a copy of the newest row',
          `INSERT INTO audit_logs (id, ip_address, endpoint, http_method, request_at, is_success, source_type, prev_hash, row_hash)
           SELECT $1, ip_address, endpoint, http_method, request_at, is_success, source_type, prev_hash, row_hash FROM audit_logs WHERE id = $2`,
          [all[11]! + 1000, all[11]],
          { reason: 'unchained', firstBrokenId: all[11]! + 1000, lastIntactId: all[11]! },
        );
        await attempt('a row inserted without hashes after the newest', "INSERT INTO audit_logs (endpoint, is_success, source_type) VALUES ('/forged', true, 'Internal') RETURNING id", [], {
          reason: 'unchained', firstBrokenId: all[11]! + 1, lastIntactId: all[11]!,
        });
        assert.equal((await verifyAuditChain(db)).ok, true);
      } finally {
        await db.close();
      }
    });

    test('after tampering, the writer goes on chaining onto the head: the damage stays visible', async () => {
      const db = await engine.open();
      try {
        await writeRows(db, Array.from({ length: 5 }, (_, i) => row(i)));
        const all = await ids(db);
        await db.query('DELETE FROM audit_logs WHERE id = $1', [all[4]]);
        await writeRows(db, [row(5)]);
        const result = await verifyAuditChain(db);
        assert.equal(result.ok, false);
        if (!result.ok) assert.deepEqual([result.reason, result.lastIntactId], ['removed', all[3]]);
      } finally {
        await db.close();
      }
    });

    test('a chain recomputed after a change verifies on its own, but not against an anchor noted before', async () => {
      const db = await engine.open();
      try {
        await writeRows(db, Array.from({ length: 8 }, (_, i) => row(i)));
        const noted = await verifyAuditChain(db);
        assert.ok(noted.ok && noted.headId !== null);
        const anchor = { id: noted.headId, hash: noted.headHash.toUpperCase() };
        await writeRows(db, [row(8), row(9)]);
        assert.deepEqual((await verifyAuditChain(db, { anchor, batchSize: 3 })).ok, true, 'later rows leave the anchor as it was');
        // A row changed, then every hash recomputed from it on, the head included: the chain holds together again.
        const second = (await ids(db))[1]!;
        await db.query("UPDATE audit_logs SET request_payload = 'rewritten history' WHERE id = $1", [second]);
        await db.exec(`
          UPDATE audit_logs a SET prev_hash = c.prev_hash, row_hash = c.row_hash
            FROM (SELECT id, row_hash, coalesce(lag(row_hash) OVER (ORDER BY id), '\\x${GENESIS.toString('hex')}'::bytea) AS prev_hash
                    FROM (SELECT id, audit_chain(audit_log_encoding(l)) OVER (ORDER BY id) AS row_hash FROM audit_logs l) s) c
           WHERE a.id = c.id;
          UPDATE audit_chain_head SET (last_id, last_hash) = (SELECT id, row_hash FROM audit_logs ORDER BY id DESC LIMIT 1);`);
        assert.equal((await verifyAuditChain(db)).ok, true, 'without an anchor nothing shows');
        const anchored = await verifyAuditChain(db, { anchor, batchSize: 3 });
        assert.equal(anchored.ok, false);
        if (!anchored.ok) assert.deepEqual([anchored.reason, anchored.firstBrokenId, anchored.verified], ['rewritten', anchor.id, 7]);
        const beyond = await verifyAuditChain(db, { anchor: { id: 10_000, hash: anchor.hash } });
        assert.equal(beyond.ok, false);
        if (!beyond.ok) assert.deepEqual([beyond.reason, beyond.firstBrokenId], ['removed', 10_000]);
      } finally {
        await db.close();
      }
    });

    test('two writers on separate connections append one chain in id order', async () => {
      const db = await engine.open();
      try {
        const peer = await db.openPeer();
        try {
          const a = createAuditWriter(db, quiet, { flushIntervalMs: NO_TIMER, batchSize: 7 });
          const b = createAuditWriter(peer, quiet, { flushIntervalMs: NO_TIMER, batchSize: 5 });
          const flushes: Array<Promise<void>> = [];
          for (let i = 0; i < 200; i++) {
            (i % 2 ? a : b).push(row(i));
            if (i % 10 === 9) flushes.push(a.flush(), b.flush());
          }
          await Promise.all([...flushes, a.close(), b.close()]);
          assert.equal(a.stats().written + b.stats().written, 200);
          const result = await verifyAuditChain(db, { batchSize: 16 });
          assert.deepEqual({ ok: result.ok, verified: result.verified }, { ok: true, verified: 200 });
        } finally {
          await peer.close();
        }
      } finally {
        await db.close();
      }
    });

    test('migration 012 chains the rows already there, in id order, and the writer continues the chain', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'migrations-011-'));
      const db = await engine.open({ migrate: false });
      try {
        for (const file of (await readdir(DEFAULT_MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql') && f < '012')) {
          await cp(path.join(DEFAULT_MIGRATIONS_DIR, file), path.join(dir, file));
        }
        await migrate(db, { dir });
        // Rows from before the chain existed, inserted out of request_at order, one with a NUL-free oddity of every kind.
        for (const [i, [, overrides]] of ODD_ROWS.entries()) {
          const r = row(100 - i, { ...overrides, requestPayload: overrides.requestPayload?.replaceAll('\u0000', '') ?? null });
          await db.query(
            `INSERT INTO audit_logs (ip_address, endpoint, http_method, client_code, request_at, request_payload, response_payload, response_time_ms, error_message, source_type, is_success)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
            [r.ipAddress, r.endpoint, r.httpMethod, r.clientCode, r.requestAt, r.requestPayload, r.responsePayload, r.responseTimeMs, r.errorMessage, r.sourceType, r.isSuccess],
          );
        }
        const counts = (await db.query('SELECT * FROM audit_log_counts ORDER BY 1, 2, 3, 4, 5')).rows;
        const applied = await migrate(db);
        assert.deepEqual(applied.applied.map((m) => m.version), (await readdir(DEFAULT_MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql') && f >= '012').map((f) => Number(f.slice(0, 3))));
        assert.deepEqual((await db.query('SELECT * FROM audit_log_counts ORDER BY 1, 2, 3, 4, 5')).rows, counts, 'the per-day counts are untouched');
        const backfilled = await verifyAuditChain(db, { batchSize: 5 });
        assert.deepEqual({ ok: backfilled.ok, verified: backfilled.verified }, { ok: true, verified: ODD_ROWS.length });
        await writeRows(db, [row(1), row(2)]);
        const continued = await verifyAuditChain(db, { batchSize: 5 });
        assert.deepEqual({ ok: continued.ok, verified: continued.verified }, { ok: true, verified: ODD_ROWS.length + 2 });
        // Their hashes live in audit_log_hashes, not in the rows: audit_logs itself was not rewritten.
        assert.equal((await db.query('SELECT count(*)::int AS n FROM audit_logs WHERE row_hash IS NULL')).rows[0]!.n, ODD_ROWS.length);
        const first = (await db.query<{ id: number }>('SELECT min(id) AS id FROM audit_logs')).rows[0]!.id;
        const tampered = async (sql: string, expected: { reason: string; firstBrokenId: number }) => {
          await db.transaction(async (tx) => {
            await tx.query(sql, [first + 3]);
            const result = await verifyAuditChain(tx, { batchSize: 5 });
            assert.equal(result.ok, false, sql);
            if (!result.ok) assert.deepEqual({ reason: result.reason, firstBrokenId: result.firstBrokenId }, expected, sql);
            throw new Error('rollback');
          }).catch((error: unknown) => assert.match(String(error), /rollback/));
        };
        await tampered("UPDATE audit_logs SET endpoint = '/changed' WHERE id = $1", { reason: 'changed', firstBrokenId: first + 3 });
        await tampered('DELETE FROM audit_logs WHERE id = $1', { reason: 'removed', firstBrokenId: first + 4 });
        await tampered('DELETE FROM audit_log_hashes WHERE id = $1', { reason: 'unchained', firstBrokenId: first + 3 });
        await tampered('UPDATE audit_log_hashes SET row_hash = sha256(row_hash) WHERE id = $1', { reason: 'changed', firstBrokenId: first + 3 });
      } finally {
        await db.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
