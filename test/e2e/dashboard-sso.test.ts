import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { runCli } from '../support/cli-process.js';
import { startTestOidcProvider, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type TestOidcProvider } from '../support/oidc-test-provider.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// "Sign in with …" in the dashboard, in headless Chromium: the server process with single sign-on
// through a real OpenID provider (oidc-provider), which logs the person in without a form.

describe('Dashboard: sign in with the OpenID provider, and registration by invite only', function () {
  this.timeout(60_000);
  let dataDir: string;
  let idp: TestOidcProvider;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-sso-'));
    idp = await startTestOidcProvider();
    const [port, contentPort] = [await freePort(), await freePort()];
    const api = `http://127.0.0.1:${port}`;
    idp.useRedirectUri(`${api}/auth/oidc/callback`);
    server = await startServerProcess({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      PUBLIC_API_URL: api,
      PUBLIC_CONTENT_URL: `http://127.0.0.1:${contentPort}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      REGISTRATION: 'invite',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: TEST_CLIENT_ID,
      OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      OIDC_NAME: 'Test IdP',
    });
    browser = await launchChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
  });

  after(async () => {
    await browser?.close();
    if (server) expect(await server.stop(), server.output()).to.equal(0);
    await idp?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('says registration is by invitation only without an invite link', async () => {
    await page.goto(`${server.api}/#/register`);
    await page.getByText('by invitation only').waitFor();
    expect(await page.locator('form input[name="email"]').count()).to.equal(0);
  });

  it('refuses the first sign-in through the provider without an invite, and shows why', async () => {
    idp.signInAs = { sub: 'e2e-ann', email: 'ann@example.com', email_verified: true };
    await page.goto(`${server.api}/#/signin`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign-in failed' }).waitFor();
    await page.getByText('New accounts need an invite').waitFor();
  });

  it('signs in with an invite link through the provider, lands on the files signed in, with no code left in the address', async () => {
    const created = await runCli(['invites', 'create'], { DATA_DIR: dataDir, PASSWORD_HASH_MEMORY_KIB: '1024', PUBLIC_API_URL: server.api });
    expect(created.code, created.stderr).to.equal(0);
    await page.goto(created.stdout.trim());
    await page.getByText('You were invited').waitFor();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    expect(page.url()).to.equal(`${server.api}/#/files`);
    await page.getByText('ann@example.com').first().waitFor();
    expect(pageErrors).to.deep.equal([]);
  });
});
