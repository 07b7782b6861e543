import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { NO_NODE_ENV } from '../../dev/bitcoin/node-launcher.ts';

/**
 * Browser tests drive Debian's Chromium through playwright-core (no browser
 * download). Screenshots are kept as test artifacts (git-ignored).
 */

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
export const ARTIFACTS_DIR = path.resolve(import.meta.dirname, '../../../test-artifacts');
/** The built web app; TEST_WEB_DIST_DIR points the tests at another build (e.g. an older one, to see a new test fail on it). */
export const WEB_DIST_DIR = process.env.TEST_WEB_DIST_DIR ?? path.resolve(import.meta.dirname, '../../../web/dist');

/**
 * `scrollbars`: drawn as a desktop browser draws them, taking width from the
 * page (headless Chromium otherwise hides them), for tests that measure what
 * fits beside one.
 */
export async function launchBrowser(options: { scrollbars?: boolean } = {}): Promise<Browser> {
  if (process.env[NO_NODE_ENV] === '1') throw new Error(`${NO_NODE_ENV}=1: the unit tier starts no browser. A browser test belongs in server/test/browser/.`);
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, ...(options.scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}) });
  } catch (error) {
    throw new Error(`Cannot start Chromium at ${CHROMIUM} (apt-get install -y chromium): ${(error as Error).message}`, { cause: error });
  }
}

/** `fullPage: false`: the viewport as it is, scrollbar and all (a full-page capture resizes it, and the scrollbar goes). */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage });
}

export { until } from './until.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core in the page and answers the violations of serious or
 * critical impact (docs/architecture.md#testing: there must be none), with what and where.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol rather than added as an inline
  // <script>, which the portal's Content-Security-Policy refuses (as it should).
  await page.evaluate(AXE_SOURCE);
  return page.evaluate<AxeViolation[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) })))
  `);
}

/** The violations of the given axe-core rules only, whatever their impact (a moderate rule the page must still pass). */
export async function a11yRuleViolations(page: Page, rules: string[]): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate<AxeViolation[]>(`
    axe.run(document, { runOnly: { type: 'rule', values: ${JSON.stringify(rules)} }, resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) })))
  `);
}
