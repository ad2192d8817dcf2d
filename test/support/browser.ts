/**
 * How long a browser test waits for an element or a navigation, in ms (Playwright's
 * `setDefaultTimeout`; its own default is 30 s). The dashboard's first load compiles its bundle in
 * Chromium, which on a 2-CPU machine running the other test files at the same time has taken more
 * than 10 s; 20 s leaves room for that and still fails well within a test's own timeout.
 */
export const BROWSER_WAIT_MS = 20_000;
