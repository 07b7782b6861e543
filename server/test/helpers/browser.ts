import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium through playwright-core (no browser
 * download). Screenshots are kept as test artifacts (git-ignored).
 */

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
export const ARTIFACTS_DIR = path.resolve(import.meta.dirname, '../../../test-artifacts');
export const WEB_DIST_DIR = path.resolve(import.meta.dirname, '../../../web/dist');

export async function launchBrowser(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  } catch (error) {
    throw new Error(`Cannot start Chromium at ${CHROMIUM} (apt-get install -y chromium): ${(error as Error).message}`, { cause: error });
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}
