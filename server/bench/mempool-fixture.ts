import { TXID_BYTES, txidAt, type MempoolSnapshot, type SnapshotEntry } from '@slipstream/mempool-engine/mirror/mempool-snapshot';
import { seededRandom } from '../src/lib/seeded-random.ts';

/**
 * A synthetic mempool for the projection benchmark, deterministic for a
 * seed: the same seed gives the same transactions on every machine.
 *
 * Shaped after a congested mainnet mempool:
 * - sizes: mostly 110–300 vB payments, a tail of consolidations and
 *   batches to 100 kvB (about 320 vB on average, some 3,000 transactions a
 *   block); a few sigop-heavy transactions (1 in 3,000) priced by sigops;
 * - fee rates: most of the backlog at 1–4 sat/vB, a tail to 500 sat/vB,
 *   a third at round rates (ties are common in real mempools);
 * - ancestry: about a third of transactions spend unconfirmed outputs,
 *   growing chains of up to 25 (Core's -limitancestorcount) and a few
 *   two-parent merges; children of cheap parents often pay for them (CPFP).
 */

export interface MempoolFixtureOptions {
  count?: number;
  seed?: number;
}

export const DEFAULT_FIXTURE = { count: 300_000, seed: 20_240_501 } as const;

/** Core's default -limitancestorcount. */
const ANCESTOR_LIMIT = 25;
/** How far back a child looks for an unconfirmed parent (arrival order). */
const PARENT_WINDOW = 4_000;

export function generateMempoolFixture(options: MempoolFixtureOptions = {}): MempoolSnapshot {
  const count = options.count ?? DEFAULT_FIXTURE.count;
  const random = seededRandom(options.seed ?? DEFAULT_FIXTURE.seed);
  const between = (low: number, high: number) => low + (high - low) * random();
  const logBetween = (low: number, high: number) => Math.exp(between(Math.log(low), Math.log(high)));

  const fee = new Float64Array(count);
  const vsize = new Int32Array(count);
  const weight = new Int32Array(count);
  const sigops = new Int32Array(count);
  const txids = new Uint8Array(count * TXID_BYTES);
  const parentStart = new Int32Array(count + 1);
  const parentList: number[] = [];
  /** An upper bound of each transaction's ancestor count (itself included): the sum over its parents. */
  const ancestorBound = new Int32Array(count);
  const ownRate = new Float64Array(count);

  for (let i = 0; i < count; i++) {
    for (let b = 0; b < TXID_BYTES; b++) txids[i * TXID_BYTES + b] = Math.floor(random() * 256);

    const sizeDraw = random();
    let size: number;
    if (sizeDraw < 0.51) size = Math.round(between(110, 145));
    else if (sizeDraw < 0.85) size = Math.round(between(145, 300));
    else if (sizeDraw < 0.969) size = Math.round(logBetween(300, 1_000));
    else if (sizeDraw < 0.999) size = Math.round(logBetween(1_000, 5_000));
    else size = Math.round(logBetween(5_000, 100_000));
    let txWeight = random() < 0.2 ? 4 * size : 4 * size - Math.floor(random() * 4);
    let sigopCost = 1 + Math.floor(random() * 8);
    if (random() < 0.0003) {
      // Bare-multisig style: sigops, not bytes, set the vsize (policy.cpp GetVirtualTransactionSize, 20 vbytes per sigop cost).
      sigopCost = Math.round(between(400, 4_000));
      txWeight = Math.min(txWeight, 4 * size);
      size = Math.max(size, 5 * sigopCost);
    }

    const rateDraw = random();
    let rate: number;
    if (rateDraw < 0.45) rate = between(1, 2);
    else if (rateDraw < 0.7) rate = between(2, 4);
    else if (rateDraw < 0.85) rate = between(4, 8);
    else if (rateDraw < 0.95) rate = between(8, 20);
    else if (rateDraw < 0.99) rate = between(20, 60);
    else rate = logBetween(60, 500);
    if (random() < 0.33) rate = Math.max(1, Math.round(rate));

    parentStart[i] = parentList.length;
    let ancestors = 1;
    if (i > 0 && random() < 0.33) {
      const parentCount = random() < 0.1 ? 2 : 1;
      for (let k = 0; k < parentCount; k++) {
        // Prefer recent transactions: chains grow where the money just moved.
        const back = 1 + Math.floor(logBetween(1, Math.min(i, PARENT_WINDOW)));
        const parent = i - Math.min(back, i);
        if (parentList.length > parentStart[i]! && parentList[parentList.length - 1] === parent) continue;
        if (ancestors + ancestorBound[parent]! > ANCESTOR_LIMIT) continue;
        parentList.push(parent);
        ancestors += ancestorBound[parent]!;
        // Child pays for a cheap parent: a rate that lifts the package well above the parent's own.
        if (ownRate[parent]! < 3 && random() < 0.4) rate = Math.max(rate, ownRate[parent]! * between(3, 20));
      }
    }
    ancestorBound[i] = ancestors;
    ownRate[i] = rate;
    fee[i] = Math.ceil(rate * size);
    vsize[i] = size;
    weight[i] = txWeight;
    sigops[i] = sigopCost;
  }
  parentStart[count] = parentList.length;
  return { count, fee, modifiedFee: fee.slice(), vsize, weight, sigops, parentStart, parents: Int32Array.from(parentList), txids };
}

/** The same mempool as plain entries, the form a mirror built of objects would hold. */
export function fixtureEntries(snapshot: MempoolSnapshot): SnapshotEntry[] {
  const txid = Array.from({ length: snapshot.count }, (_, i) => txidAt(snapshot, i));
  return txid.map((id, i) => ({
    txid: id,
    fee: snapshot.fee[i]!,
    modifiedFee: snapshot.modifiedFee[i]!,
    vsize: snapshot.vsize[i]!,
    weight: snapshot.weight[i]!,
    sigops: snapshot.sigops[i]!,
    depends: Array.from(snapshot.parents.subarray(snapshot.parentStart[i], snapshot.parentStart[i + 1]), (p) => txid[p]!),
  }));
}
