import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { formatOpenApi, generateOpenApi } from '../openapi.ts';

/** `npm run openapi`: regenerate the committed API document after changing a route schema. */
export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url));

if (import.meta.main) {
  await writeFile(OPENAPI_FILE, formatOpenApi(await generateOpenApi()));
  console.log(`wrote ${OPENAPI_FILE}`);
}
