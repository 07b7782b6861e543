import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { OPENAPI_FILE, WEB_API_TYPES_FILE } from './cli/write-openapi.ts';
import { formatOpenApi, generateOpenApi, generateWebApiTypes } from './openapi.ts';

test('the committed OpenAPI document matches the route schemas (run `npm run openapi` after changing a route)', async () => {
  const committed = await readFile(OPENAPI_FILE, 'utf8');
  assert.equal(committed, formatOpenApi(await generateOpenApi()));
});

test('the OpenAPI document describes every public endpoint', async () => {
  const doc = (await generateOpenApi()) as { paths: Record<string, unknown> };
  for (const path of ['/rest-api/getinfo', '/rest-api/parse-tx', '/rest-api/submit-tx', '/rest-api/submit-package', '/rest-api/status-check']) {
    assert.ok(doc.paths[path], `${path} is documented`);
  }
});

test('the web app\'s committed API types match the OpenAPI document (run `npm run openapi`)', async () => {
  const committed = await readFile(WEB_API_TYPES_FILE, 'utf8');
  assert.equal(committed, await generateWebApiTypes(await generateOpenApi()));
});
