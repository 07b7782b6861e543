// A bare `node --test` typed at the top of the checkout with a Node other than the project's finds
// this file (older Nodes do not look for .ts test files at all) and says what to run instead.
// `npm run test:unit` runs it too, so the pinned version and .nvmrc cannot drift apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const wanted = readFileSync(new URL('./.nvmrc', import.meta.url), 'utf8').trim();
const engines = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).engines.node;

test(`the tests run on Node ${wanted}`, () => {
  assert.match(engines, new RegExp(`^>=${wanted}\\.`), `.nvmrc says ${wanted}, package.json's engines say ${engines}`);
  assert.equal(
    process.versions.node.split('.')[0],
    wanted,
    `This is Node ${process.versions.node}, and the project runs on Node ${wanted}, which npm ci installed into node_modules/.bin. ` +
      'Run `npm test` (or a tier: `npm run test:unit`, `test:integration`, `test:browser`), or one file with ' +
      '`npx node --test --test-timeout=300000 <file>` (npx picks node_modules/.bin/node). An older Node cannot load the .ts test files.',
  );
});
