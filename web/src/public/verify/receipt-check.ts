/**
 * Checks a receipt of the pool where it is pasted, with nothing but the
 * browser's WebCrypto (the same code runs in Node, whose globalThis.crypto is
 * WebCrypto): its signature against the pool's published keys, and, once
 * mined, the node's merkle proof against the block header. Nothing here asks
 * the pool whether a receipt is good: the keys and the proof are data, and
 * the checks are the standards' own.
 *
 * - The receipt is a compact JWS (RFC 7515 section 7.1), ES256 (RFC 7518
 *   section 3.4: ECDSA P-256 with SHA-256, the signature the 64 bytes R || S,
 *   which is WebCrypto's own form), typ `slipstream-receipt+jws`.
 * - The proof is a serialized merkle block (BIP 37, Bitcoin Core's
 *   CMerkleBlock as gettxoutproof answers it): the 80-byte header, the
 *   block's transaction count, the hashes and the flag bits of a partial
 *   merkle tree. Walking the tree as Core's CPartialMerkleTree does gives a
 *   root, which must be the header's merkle root, and the leaves it matched,
 *   which must hold the receipt's txid; the header's double SHA-256 is the
 *   block hash.
 */

export const RECEIPT_TYPE = 'slipstream-receipt+jws';

export interface ReceiptQuote {
  quote_id: string;
  threshold: number;
  expires_at: string;
}

/** What a receipt says (the server's modules/receipts/receipt-token.ts ReceiptClaims). */
export interface ReceiptClaims {
  v: 1;
  pool: string;
  network: string;
  txid: string;
  wtxid: string;
  fee: number;
  vsize: number;
  threshold: number;
  quote: ReceiptQuote | null;
  accepted_at: string;
}

export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  kid?: string;
  alg?: string;
}

export interface DecodedReceipt {
  header: { alg?: unknown; kid?: unknown; typ?: unknown };
  /** The payload's fields when they are a receipt's; undefined when not. */
  claims: ReceiptClaims | undefined;
  signingInput: Uint8Array<ArrayBuffer>;
  signature: Uint8Array<ArrayBuffer>;
}

export type Verdict<T> = { ok: true; value: T } | { ok: false; reason: string };

const HEX64 = /^[0-9a-f]{64}$/;

export function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error('not hex');
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export function bytesHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Bitcoin shows hashes byte-reversed. */
const reversedHex = (bytes: Uint8Array) => bytesHex(Uint8Array.from(bytes).reverse());

const isRate = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isTime = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));

function claimsOf(value: unknown): ReceiptClaims | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const c = value as Record<string, unknown>;
  const q = c.quote as Record<string, unknown> | null | undefined;
  const quoteOk = q === null || (typeof q === 'object' && q !== undefined && typeof q.quote_id === 'string' && isRate(q.threshold) && isTime(q.expires_at));
  const ok =
    c.v === 1 && typeof c.pool === 'string' && typeof c.network === 'string' &&
    typeof c.txid === 'string' && HEX64.test(c.txid) && typeof c.wtxid === 'string' && HEX64.test(c.wtxid) &&
    isCount(c.fee) && isCount(c.vsize) && isRate(c.threshold) && quoteOk && isTime(c.accepted_at);
  return ok ? (c as unknown as ReceiptClaims) : undefined;
}

/** The receipt's parts, decoded; a reason when it is not a compact JWS. */
export function decodeReceipt(receipt: string): Verdict<DecodedReceipt> {
  const parts = receipt.trim().split('.');
  if (parts.length !== 3) return { ok: false, reason: 'This is not a receipt: a receipt is three base64url parts separated by dots.' };
  try {
    const [head, body, sig] = parts as [string, string, string];
    const header = JSON.parse(new TextDecoder().decode(base64urlBytes(head))) as DecodedReceipt['header'];
    let claims: ReceiptClaims | undefined;
    try {
      claims = claimsOf(JSON.parse(new TextDecoder().decode(base64urlBytes(body))));
    } catch {
      claims = undefined;
    }
    return { ok: true, value: { header, claims, signingInput: new TextEncoder().encode(`${head}.${body}`), signature: base64urlBytes(sig) } };
  } catch {
    return { ok: false, reason: 'This is not a receipt: its parts are not base64url JSON.' };
  }
}

/**
 * Whether `receipt` is signed by one of `keys` (the pool's JWK Set): the
 * claims when it is, the reason when not. Any change to the header, the
 * payload or the signature makes it fail.
 */
export async function verifyReceipt(receipt: string, keys: readonly Jwk[]): Promise<Verdict<ReceiptClaims>> {
  const decoded = decodeReceipt(receipt);
  if (!decoded.ok) return decoded;
  const { header, claims, signingInput, signature } = decoded.value;
  if (header.typ !== RECEIPT_TYPE || header.alg !== 'ES256') return { ok: false, reason: `This is not a receipt of the pool: its header is not ES256 with type ${RECEIPT_TYPE}.` };
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk) return { ok: false, reason: "Its key is not one of the pool's published keys: it was not signed by this pool, or the key was withdrawn." };
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) return { ok: false, reason: 'The published key is not a P-256 key.' };
  const key = await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, ext: true }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']).catch(() => undefined);
  if (!key) return { ok: false, reason: 'The published key is not a valid P-256 key.' };
  const good = signature.length === 64 && (await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, signingInput));
  if (!good) return { ok: false, reason: 'The signature does not verify: the receipt was altered, or not signed by this pool.' };
  if (!claims) return { ok: false, reason: "Signed by the pool, but its content is not a receipt's." };
  return { ok: true, value: claims };
}

async function sha256d(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const once = await crypto.subtle.digest('SHA-256', bytes);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', once));
}

/** The block hash of an 80-byte header (hex), as Bitcoin shows it. */
export async function blockHashOf(headerHex: string): Promise<string> {
  return reversedHex(await sha256d(hexBytes(headerHex)));
}

/** Bitcoin's CompactSize integer at `at`: its value and the next position. */
function compactSize(bytes: Uint8Array, at: number): [number, number] {
  const first = bytes[at];
  if (first === undefined) throw new Error('truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (first < 0xfd) return [first, at + 1];
  if (first === 0xfd) return [view.getUint16(at + 1, true), at + 3];
  if (first === 0xfe) return [view.getUint32(at + 1, true), at + 5];
  throw new Error('too large');
}

/** Core's MAX_BLOCK_WEIGHT / MIN_TRANSACTION_WEIGHT: no block holds more transactions (merkleblock.cpp). */
const MAX_BLOCK_TXS = 4_000_000 / 240;

export interface MerkleInclusion {
  /** The block hash the header gives. */
  blockHash: string;
  /** The header's merkle root (byte-reversed hex). */
  merkleRoot: string;
  /** The txids the proof matches. */
  matched: string[];
}

/**
 * Walks the partial merkle tree of `proofHex` (a gettxoutproof answer) as
 * Bitcoin Core's CPartialMerkleTree::ExtractMatches does: the root it gives
 * must be the header's merkle root, every hash and flag bit must be used,
 * and no node may have two equal children (CVE-2012-2459). `headerHex`,
 * when given (the header from anywhere: a block explorer, another node), is
 * what the proof must be checked against; otherwise its own.
 */
export async function checkMerkleProof(proofHex: string, headerHex?: string): Promise<Verdict<MerkleInclusion>> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = hexBytes(proofHex.trim());
  } catch {
    return { ok: false, reason: 'The proof is not hex.' };
  }
  if (bytes.length < 84) return { ok: false, reason: 'The proof is too short to hold a block header.' };
  const header = bytes.slice(0, 80);
  if (headerHex !== undefined && bytesHex(header) !== headerHex.trim().toLowerCase()) return { ok: false, reason: "The proof is not for this block header: its own header differs." };
  const view = new DataView(bytes.buffer);
  const total = view.getUint32(80, true);
  let hashes: Uint8Array<ArrayBuffer>[];
  let bits: boolean[];
  try {
    let at = 84;
    let n: number;
    [n, at] = compactSize(bytes, at);
    hashes = [];
    for (let i = 0; i < n; i++, at += 32) {
      if (at + 32 > bytes.length) throw new Error('truncated');
      hashes.push(bytes.slice(at, at + 32));
    }
    [n, at] = compactSize(bytes, at);
    if (at + n !== bytes.length) throw new Error('length');
    bits = [];
    for (let i = 0; i < n * 8; i++) bits.push(((bytes[at + (i >> 3)]! >> (i & 7)) & 1) === 1);
  } catch {
    return { ok: false, reason: 'The proof is not a serialized merkle block.' };
  }
  if (total === 0 || total > MAX_BLOCK_TXS || hashes.length > total || bits.length < hashes.length) return { ok: false, reason: 'The proof is malformed (its counts do not fit a block).' };

  const width = (height: number) => Math.floor((total + 2 ** height - 1) / 2 ** height);
  let height = 0;
  while (width(height) > 1) height++;
  let bitsUsed = 0;
  let hashesUsed = 0;
  const matched: string[] = [];
  const bad = new Error('bad');
  async function walk(h: number, pos: number): Promise<Uint8Array<ArrayBuffer>> {
    if (bitsUsed >= bits.length) throw bad;
    const parentOfMatch = bits[bitsUsed++]!;
    if (h === 0 || !parentOfMatch) {
      if (hashesUsed >= hashes.length) throw bad;
      const hash = hashes[hashesUsed++]!;
      if (h === 0 && parentOfMatch) matched.push(reversedHex(hash));
      return hash;
    }
    const left = await walk(h - 1, pos * 2);
    let right = left;
    if (pos * 2 + 1 < width(h - 1)) {
      right = await walk(h - 1, pos * 2 + 1);
      if (bytesHex(right) === bytesHex(left)) throw bad;
    }
    const both = new Uint8Array(64);
    both.set(left, 0);
    both.set(right, 32);
    return sha256d(both);
  }
  let root: Uint8Array<ArrayBuffer>;
  try {
    root = await walk(height, 0);
  } catch {
    return { ok: false, reason: 'The proof is malformed (its merkle tree does not walk).' };
  }
  if (Math.ceil(bitsUsed / 8) !== Math.ceil(bits.length / 8) || hashesUsed !== hashes.length) return { ok: false, reason: 'The proof is malformed (hashes or flag bits left over).' };
  const merkleRoot = reversedHex(header.slice(36, 68));
  if (reversedHex(root) !== merkleRoot) return { ok: false, reason: "The proof's merkle tree does not lead to the header's merkle root." };
  return { ok: true, value: { blockHash: await blockHashOf(bytesHex(header)), merkleRoot, matched } };
}

/** The whole offline check of a mined receipt: its txid is among the proof's matches, and the proof leads to `headerHex`'s merkle root. */
export async function checkInclusion(claims: Pick<ReceiptClaims, 'txid'>, proofHex: string, headerHex: string): Promise<Verdict<MerkleInclusion>> {
  const proof = await checkMerkleProof(proofHex, headerHex);
  if (!proof.ok) return proof;
  if (!proof.value.matched.includes(claims.txid)) return { ok: false, reason: "The proof does not include the receipt's transaction." };
  return proof;
}
