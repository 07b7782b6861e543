/** Each step of the run on one line with its time since the start, and the figures worth reporting. */

const started = performance.now();
const clock = () => `${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s`;
const figures: Array<[string, string]> = [];

export function note(message: string): void {
  console.log(`[${clock()}]     ${message}`);
}

/** A figure for the summary at the end (image sizes, build and start times, round trips). */
export function figure(name: string, value: string): void {
  figures.push([name, value]);
  note(`${name}: ${value}`);
}

export function seconds(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(1)} s`;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

/** Runs one step: prints it, times it, and lets its failure end the run. */
export async function step<T>(title: string, body: () => Promise<T>): Promise<T> {
  console.log(`[${clock()}] ▶ ${title}`);
  const t0 = performance.now();
  try {
    const result = await body();
    console.log(`[${clock()}] ✓ ${title} (${seconds(performance.now() - t0)})`);
    return result;
  } catch (error) {
    console.log(`[${clock()}] ✗ ${title} (${seconds(performance.now() - t0)})`);
    throw error;
  }
}

export function printFigures(): void {
  if (figures.length === 0) return;
  const width = Math.max(...figures.map(([name]) => name.length));
  console.log('\nSummary');
  for (const [name, value] of figures) console.log(`  ${name.padEnd(width)}  ${value}`);
}

export function elapsed(): string {
  return clock().trim();
}
