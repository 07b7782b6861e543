import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Semaphore } from './semaphore.ts';

test('never lets more than the limit hold the semaphore', async () => {
  const semaphore = new Semaphore(3);
  let inside = 0;
  let peak = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      await semaphore.acquire();
      inside++;
      peak = Math.max(peak, inside);
      await new Promise((r) => setTimeout(r, 1));
      inside--;
      semaphore.release();
    }),
  );
  assert.equal(peak, 3);
  assert.equal(semaphore.active, 0);
  assert.equal(semaphore.waiting, 0);
});

test('refuses a limit that is not a positive integer', () => {
  assert.throws(() => new Semaphore(0), RangeError);
});
