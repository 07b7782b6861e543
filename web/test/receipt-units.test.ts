import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { checkMerkleProof, decodeReceipt } from '../src/public/verify/receipt-check.ts';
import { keepReceipts, keptReceipt, MAX_KEPT, RECEIPTS_STORAGE_KEY, type ReceiptStorage } from '../src/public/verify/receipt-store.ts';
import { pickQuote, QUOTE_MARGIN_MS, type HeldQuote } from '../src/public/quote-hold.ts';

/** The receipt pieces of the web app that need no browser: the quote the submit page holds, the receipts it keeps, the proof walk's refusals. */

const now = Date.parse('2025-06-01T12:00:00Z');
const quote = (threshold: number, expiresInMs: number, id = `q-${threshold}-${expiresInMs}`): HeldQuote => ({ quote_id: id, threshold, expires_at: new Date(now + expiresInMs).toISOString() });

describe('the quote the submit page holds', () => {
  test('a fresh quote replaces the held one only when it is no dearer', () => {
    const held = quote(2, 300_000);
    assert.equal(pickQuote(held, quote(3, 600_000), now), held, 'the minimum rose: the page keeps the lower quote it showed');
    assert.equal(pickQuote(held, quote(1.5, 600_000), now)?.threshold, 1.5, 'the minimum fell: the lower one');
    assert.equal(pickQuote(held, quote(2, 600_000, 'later'), now)?.quote_id, 'later', 'as cheap and lasting longer');
    assert.equal(pickQuote(held, quote(2, 100_000, 'sooner'), now), held);
  });
  test('a held quote about to end gives way, whatever the fresh one costs; none usable, none held', () => {
    const ending = quote(2, QUOTE_MARGIN_MS - 1);
    assert.equal(pickQuote(ending, quote(5, 600_000), now)?.threshold, 5);
    assert.equal(pickQuote(undefined, quote(5, 600_000), now)?.threshold, 5);
    assert.equal(pickQuote(ending, quote(5, QUOTE_MARGIN_MS), now), undefined);
    assert.equal(pickQuote(undefined, undefined, now), undefined);
  });
});

describe('the receipts this browser keeps', () => {
  const storage = (): ReceiptStorage & { data: Map<string, string> } => {
    const data = new Map<string, string>();
    return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
  };
  const txid = (i: number) => i.toString(16).padStart(64, '0');

  test('kept by txid, the newest last, at most MAX_KEPT', () => {
    const s = storage();
    keepReceipts({ [txid(1)]: 'r1', [txid(2)]: 'r2' }, s);
    assert.equal(keptReceipt(txid(1), s), 'r1');
    assert.equal(keptReceipt(txid(1).toUpperCase(), s), 'r1', 'a txid typed in capitals');
    assert.equal(keptReceipt(txid(3), s), undefined);
    keepReceipts({ [txid(1)]: 'r1 again' }, s);
    assert.equal(keptReceipt(txid(1), s), 'r1 again');
    for (let i = 10; i < 10 + MAX_KEPT; i++) keepReceipts({ [txid(i)]: `r${i}` }, s);
    assert.equal(keptReceipt(txid(2), s), undefined, 'the oldest dropped');
    assert.equal(keptReceipt(txid(9 + MAX_KEPT), s), `r${9 + MAX_KEPT}`);
    assert.equal((JSON.parse(s.data.get(RECEIPTS_STORAGE_KEY)!) as unknown[]).length, MAX_KEPT);
  });
  test('a corrupt or full storage keeps nothing and never throws', () => {
    const s = storage();
    s.data.set(RECEIPTS_STORAGE_KEY, '{not json');
    assert.equal(keptReceipt(txid(1), s), undefined);
    keepReceipts({ [txid(1)]: 'r1' }, s);
    assert.equal(keptReceipt(txid(1), s), 'r1');
    const full: ReceiptStorage = { getItem: () => null, setItem: () => { throw new Error('QuotaExceededError'); } };
    keepReceipts({ [txid(1)]: 'r1' }, full);
    assert.equal(keptReceipt(txid(1), undefined), undefined);
  });
});

describe('the receipt check refuses what is not a receipt or a proof', () => {
  const sha256d = (b: Buffer) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
  /** A merkle block of `leaves` with every leaf matched, as Core serializes one: header, count, hashes, flag bytes. */
  function merkleBlock(leaves: Buffer[], root: Buffer): Buffer {
    const header = Buffer.alloc(80);
    root.copy(header, 36);
    const count = Buffer.alloc(4);
    count.writeUInt32LE(leaves.length);
    // Two leaves, both matched: the root's bit, then each leaf's.
    return Buffer.concat([header, count, Buffer.from([leaves.length]), ...leaves, Buffer.from([1, 0b111])]);
  }

  test('two equal children are refused (CVE-2012-2459), a consistent tree is walked', async () => {
    const a = Buffer.alloc(32, 1);
    const b = Buffer.alloc(32, 2);
    const good = await checkMerkleProof(merkleBlock([a, b], sha256d(Buffer.concat([a, b]))).toString('hex'));
    assert.ok(good.ok, JSON.stringify(good));
    assert.deepEqual(good.value.matched, [Buffer.from(a).reverse().toString('hex'), Buffer.from(b).reverse().toString('hex')]);
    const duplicated = await checkMerkleProof(merkleBlock([a, a], sha256d(Buffer.concat([a, a]))).toString('hex'));
    assert.equal(duplicated.ok, false);
  });
  test('not hex, too short, counts that do not fit, bytes left over', async () => {
    for (const proof of ['zz', '00'.repeat(80), `${'00'.repeat(80)}00000000${'00'}${'00'}`, `${merkleBlock([Buffer.alloc(32, 1), Buffer.alloc(32, 2)], Buffer.alloc(32)).toString('hex')}00`]) {
      assert.equal((await checkMerkleProof(proof)).ok, false, proof.slice(0, 40));
    }
  });
  test('a receipt is three base64url parts of JSON', () => {
    assert.equal(decodeReceipt('a.b').ok, false);
    assert.equal(decodeReceipt('!!.e30.AA').ok, false);
    const decoded = decodeReceipt(`${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('{"v":1}').toString('base64url')}.AA`);
    assert.ok(decoded.ok);
    assert.equal(decoded.value.claims, undefined, 'not a receipt\'s fields');
  });
});
