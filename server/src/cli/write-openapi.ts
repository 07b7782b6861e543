import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { formatOpenApi, generateOpenApi, generateWebApiTypes } from '../openapi.ts';

/** `npm run openapi`: regenerate the committed API document after changing a route schema. */
export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url));
export const WEB_API_TYPES_FILE = fileURLToPath(new URL('../../../web/src/api/schema.d.ts', import.meta.url));

if (import.meta.main) {
  const document = await generateOpenApi();
  await writeFile(OPENAPI_FILE, formatOpenApi(document));
  await writeFile(WEB_API_TYPES_FILE, await generateWebApiTypes(document));
  console.log(`wrote ${OPENAPI_FILE} and ${WEB_API_TYPES_FILE}`);
}
