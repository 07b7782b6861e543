import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from './app.ts';
import type { LocalIssuer } from './auth/local-issuer.ts';
import type { Database } from './db/database.ts';
import type { RpcClient } from './bitcoin/rpc-client.ts';
import { systemClock } from './lib/clock.ts';
import { createServices } from './services.ts';

/**
 * The OpenAPI document comes from the route schemas alone. Building the app
 * for it needs adapters that are never called; these refuse loudly if they are.
 */
function unused(name: string): never {
  throw new Error(`${name} is not available while generating the API document`);
}

export async function generateOpenApi(): Promise<object> {
  const db = { kind: 'pglite', query: () => unused('database'), transaction: () => unused('database'), close: async () => {} } as unknown as Database;
  const rpc = { call: () => unused('node'), batch: () => unused('node'), wallet: () => unused('node') } as unknown as RpcClient;
  const services = createServices({
    db,
    rpc,
    webhooks: { portalKey: Buffer.alloc(32), allowPrivate: false },
    clock: systemClock,
    market: { snapshot: () => unused('market') },
    mempool: {
      feed: { current: () => null, subscribe: () => () => {} },
      view: () => unused('mempool engine'),
      viewWith: () => unused('mempool engine'),
      odds: () => unused('mempool engine'),
      removal: () => undefined,
      minedBlockOf: () => unused('mempool engine'),
      health: () => unused('mempool engine'),
      templateCheck: () => unused('mempool engine'),
    },
    settings: { get: () => unused('settings'), invalidate: () => {} },
    records: { keep: () => unused('records'), drain: () => unused('records'), spooled: () => unused('records'), idle: async () => {}, track: (work) => work, close: async () => {} },
    audit: { push: () => {}, flush: async () => {}, close: async () => {}, stats: () => ({ queued: 0, written: 0, dropped: 0, failedWrites: 0 }) },
    log: { info: () => {}, warn: () => {}, error: () => {} },
    staff: {
      verifier: { verify: () => unused('identity provider') },
      issuer: { verify: () => unused('identity provider'), issue: () => unused('staff accounts'), renew: () => unused('staff accounts') } as unknown as LocalIssuer,
      signIn: { issuer: 'https://issuer.example', clientId: 'slipstream-portal' },
    },
    network: 'regtest',
  });
  const app = await buildApp(services, { rateLimit: { max: 1, windowMs: 60_000 }, trustProxy: false, auditPayloadMaxChars: 4096 });
  await app.ready();
  const document = app.swagger();
  await app.close();
  return document;
}

export function formatOpenApi(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The web app's API types, generated from the same document (docs/architecture.md, convention 7). */
export async function generateWebApiTypes(document: object): Promise<string> {
  const banner = '// Generated from server/openapi.json by `npm run openapi`. Do not edit.\n\n';
  return banner + astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}
