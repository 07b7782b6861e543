import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser } from './browser.ts';
import { startTestNode, type TestNode } from './regtest.ts';
import type { TestAppOptions } from './test-app.ts';
import { testDatabases, type TestDatabase } from './test-db.ts';
import { startWebTestApp, type WebTestApp } from './web-app.ts';

/** What a browser test of the public pages runs against. */
export interface BrowserSuite {
  node: TestNode;
  db: TestDatabase;
  app: WebTestApp;
  browser: Browser;
  /** One visitor's browser profile. */
  context: BrowserContext;
  /** Closes all of it, the last started first. */
  close(): Promise<void>;
}

/**
 * The whole product as a visitor meets it: a regtest node holding `utxos`
 * spendable coins, the first test database, the web app on its own port, and
 * Chromium with one profile (allowed the clipboard when `clipboard`, for the
 * copy buttons).
 */
export async function startBrowserSuite(options: {
  utxos: number;
  clipboard?: boolean;
  /** More arguments for the regtest node. */
  nodeArgs?: string[];
  /** Started once the node is funded, before the app: what it adds to the app's options, and how to stop it (e.g. a second node). */
  beside?: (node: TestNode) => Promise<{ app: TestAppOptions; stop(): Promise<void> }>;
}): Promise<BrowserSuite> {
  const started: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const stop of started.reverse()) await stop();
  };
  try {
    const node = await startTestNode(options.nodeArgs ? { extraArgs: options.nodeArgs } : {});
    started.push(() => node.stop());
    await node.ensureUtxos(options.utxos);
    const beside = await options.beside?.(node);
    if (beside) started.push(() => beside.stop());
    const db = await testDatabases()[0]!.open();
    started.push(() => db.close());
    const app = await startWebTestApp(node, db, beside?.app);
    started.push(() => app.close());
    const browser = await launchBrowser();
    started.push(() => browser.close());
    const context = await browser.newContext();
    started.push(() => context.close());
    if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
    return { node, db, app, browser, context, close };
  } catch (error) {
    await close();
    throw error;
  }
}
