import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSizeMemo } from './size-memo.ts';

test('the size memo keeps the newest sizes and forgets the oldest beyond its capacity', () => {
  const memo = createSizeMemo(2);
  memo.remember('a', 100);
  memo.remember('b', 200);
  memo.remember('a', 101); // remembered again: now the newest
  memo.remember('c', 300);
  assert.equal(memo.get('b'), undefined, 'the oldest went');
  assert.equal(memo.get('a'), 101);
  assert.equal(memo.get('c'), 300);
});
