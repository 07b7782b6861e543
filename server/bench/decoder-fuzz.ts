import { TxDecodeError, decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { FUZZ_SEED, fuzzCorpus, type CorpusKind } from '../test/resilience/helpers/fuzz-corpus.ts';
import { max, median, ms, percentile, ratio, round3, verdict } from './stats.ts';

/**
 * The decoder under fuzz (the resilience suite's corpus,
 * test/resilience/helpers/fuzz-corpus.ts, fixed seed): valid transactions
 * with CompactSize boundaries, bit flips, absurd counts, spliced junk, random
 * bytes and text, inputs twice the size limit. Each input is decoded and
 * timed on its own; the p99 is reported against the goal and against the
 * same measurement of a typical 250-byte transaction. The resilience test
 * checks the same p99 against a bound loose enough for any machine; the
 * number itself lives here.
 */

const GOAL_P99_MS = 50;

export interface DecoderFuzzBenchOptions {
  /** Generated inputs (default 10,000), plus the oversized ones. */
  count?: number;
  seed?: number;
  /** Print the report (default true). */
  print?: boolean;
}

export interface DecoderFuzzBenchResult {
  inputs: number;
  refused: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  typicalP99Ms: number;
  /** Fuzz p99 over the typical transaction's p99. */
  ratioP99: number;
  goalMet: boolean;
  kinds: Array<{ kind: CorpusKind; n: number; p50Ms: number; p99Ms: number; maxMs: number }>;
}

/**
 * One P2PKH input (a 107-byte signature and key script) and three P2WPKH
 * outputs: 251 bytes, a typical payment's size.
 */
export function typicalTxHex(): string {
  return encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: [{ txid: '7f'.repeat(32), vout: 1, scriptSig: `48${'30'.repeat(72)}21${'02'.repeat(33)}`, sequence: 0xffff_fffd }],
    outputs: [1, 2, 3].map((i) => ({ value: 10_000 * i, scriptPubKey: `0014${`${i}${i}`.repeat(20)}` })),
  });
}

/** Each decode timed on its own (ms); a throw other than TxDecodeError ends the bench: that is a bug. */
function timeEach(hexes: readonly string[]): { times: number[]; refused: number } {
  const times: number[] = [];
  let refused = 0;
  for (const hex of hexes) {
    const started = performance.now();
    try {
      decodeTxHex(hex);
    } catch (error) {
      if (!(error instanceof TxDecodeError)) throw error;
      refused++;
    }
    times.push(performance.now() - started);
  }
  return { times, refused };
}

export async function runDecoderFuzzBench(options: DecoderFuzzBenchOptions = {}): Promise<DecoderFuzzBenchResult> {
  const count = options.count ?? 10_000;
  const seed = options.seed ?? FUZZ_SEED;
  const print = options.print ?? true;
  const out = (line = '') => {
    if (print) process.stdout.write(`${line}\n`);
  };
  if (print) process.stderr.write(`[bench decoder-fuzz] generating ${count.toLocaleString('en-US')} inputs\n`);
  const corpus = fuzzCorpus(count, seed);
  const hexes = corpus.map((c) => c.hex);
  const typical = typicalTxHex();
  const typicalHexes = Array.from({ length: hexes.length }, () => typical);

  // One untimed pass each compiles the decoder's paths; the second is measured.
  timeEach(hexes);
  timeEach(typicalHexes);
  const fuzz = timeEach(hexes);
  const base = timeEach(typicalHexes);

  const kinds = [...new Set(corpus.map((c) => c.kind))].map((kind) => {
    const samples = fuzz.times.filter((_, i) => corpus[i]!.kind === kind);
    return { kind, n: samples.length, p50Ms: median(samples), p99Ms: percentile(samples, 99), maxMs: max(samples) };
  });
  const p99 = percentile(fuzz.times, 99);
  const typicalP99 = percentile(base.times, 99);

  out(`== Decoder under fuzz: ${corpus.length.toLocaleString('en-US')} inputs (seed ${seed}), each decodeTxHex timed on its own ==`);
  for (const k of kinds) {
    out(`${k.kind.padEnd(12)} n=${String(k.n).padStart(5)}  p50 ${ms(k.p50Ms).padStart(9)}, p99 ${ms(k.p99Ms).padStart(9)}, max ${ms(k.maxMs).padStart(9)}`);
  }
  out('(max is mostly garbage-collection pauses: the corpus holds a few hundred MB of hex)');
  out(`typical tx (${typical.length / 2} B) p50 ${ms(median(base.times))}, p99 ${ms(typicalP99)}`);
  out(
    `decoder-fuzz p99 ${ms(p99)} over ${corpus.length.toLocaleString('en-US')} inputs (${fuzz.refused.toLocaleString('en-US')} refused, max ${ms(max(fuzz.times))}); ` +
      `ratio ${ratio(p99 / typicalP99)} against the typical ${typical.length / 2}-byte tx's p99 (goal p99 ≤ ${GOAL_P99_MS} ms: ${verdict(p99 <= GOAL_P99_MS)})`,
  );
  return {
    inputs: corpus.length,
    refused: fuzz.refused,
    p50Ms: round3(median(fuzz.times)),
    p99Ms: round3(p99),
    maxMs: round3(max(fuzz.times)),
    typicalP99Ms: round3(typicalP99),
    ratioP99: round3(p99 / typicalP99),
    goalMet: p99 <= GOAL_P99_MS,
    kinds: kinds.map((k) => ({ ...k, p50Ms: round3(k.p50Ms), p99Ms: round3(k.p99Ms), maxMs: round3(k.maxMs) })),
  };
}

if (import.meta.main) await runDecoderFuzzBench();
