/**
 * Waits for a state nothing else signals (a page's stored value, a row a
 * background job writes), checking every 50 ms. On timeout it fails with
 * `explain()`'s account of what was there instead.
 */
export async function until(check: () => Promise<boolean>, explain: () => Promise<string>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms: ${await explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
