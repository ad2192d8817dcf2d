import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/**
 * How long a browser test waits for an element or a navigation, in ms (Playwright's
 * `setDefaultTimeout`; its own default is 30 s). The dashboard's first load compiles its bundle in
 * Chromium, which on a 2-CPU machine running the other test files at the same time has taken more
 * than 10 s; 20 s leaves room for that and still fails well within a test's own timeout.
 */
export const BROWSER_WAIT_MS = 20_000;

/** Debian's Chromium (the package chromium), which .ci/run installs: playwright-core never downloads a browser. */
const CHROMIUM = '/usr/bin/chromium';

/** The dashboard as `npm run build` builds it with vite: dist/dashboard/index.html, seen from dist/test/support/. */
const BUILT_DASHBOARD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dashboard/index.html');

/**
 * Skips the running test or hook (`context`: mocha's `this`) with one line saying why when
 * {@link CHROMIUM} is not installed, so that a machine without it still runs everything else.
 * @throws Error instead under CI (`CI` set), where .ci/run installs Chromium first: there a
 *         missing browser is a broken machine, not a reason to leave the browser tests out
 */
export function skipWithoutChromium(context: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  if (process.env.CI) throw new Error(`${CHROMIUM} is not installed, and CI is set: .ci/run installs the Debian package chromium before the tests`);
  console.log(`    (skipped: ${CHROMIUM} is not installed; .ci/run installs the Debian package chromium)`);
  context.skip();
}

/**
 * {@link skipWithoutChromium}, then checks that the dashboard has been built.
 * @throws Error when dist/dashboard/index.html is missing (run `npm run build`)
 */
export function skipWithoutChromiumOrFailWithoutDashboard(context: Mocha.Context): void {
  skipWithoutChromium(context);
  if (!existsSync(BUILT_DASHBOARD)) throw new Error('dist/dashboard/index.html is missing: run `npm run build` (it builds the dashboard with vite)');
}

/**
 * Launches {@link CHROMIUM} headless: without its sandbox (the tests may run as root) and GPU, and
 * without the connections it makes of its own (background networking, component updates, sync,
 * QUIC, the first-run page), which this machine's closed network refuses, many at a time.
 * @returns the browser; the caller closes it
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
