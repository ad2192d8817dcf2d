import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// The Security screen (docs/account-security.md) in Debian's headless Chromium against the real
// server process: turning two-factor sign-in on with the QR code's secret, the recovery codes shown
// once, the code step at sign-in, the devices list with "Sign out", and turning it off.

const EMAIL = 'security@example.com';
const PASSWORD = 'dashboard secret';
const totp = new OtplibTotp();
/** A code of the next 30 s step (accepted now, RFC 6238 drift window), so it is never one already used. */
const nextCode = (secret: string, steps = 1) => totp.codeAt({ secret, at: new Date(Date.now() + steps * 30_000) });

describe('Dashboard in a real browser: two-factor sign-in and signed-in devices', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let secret = '';
  let recoveryCodes: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });

  const signInWithPassword = async () => {
    await page.goto(`${server.api}/#/signin`);
    await heading('Sign in').waitFor();
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-security-'));
    const [port, contentPort] = [await freePort(), await freePort()];
    server = await startServerProcess({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      PUBLIC_API_URL: `http://127.0.0.1:${port}`,
      PUBLIC_CONTENT_URL: `http://127.0.0.1:${contentPort}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
    });
    const register = await fetch(`${server.api}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(register.status).to.equal(201);
    await fetch(`${server.api}/auth/confirm?token=${await mailedToken({ dataDir }, EMAIL, '/auth/confirm')}`, { redirect: 'manual' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, userAgent: 'HangarE2E/1.0 (Chromium)' });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.api });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  });

  after(async () => {
    await browser?.close();
    if (server) expect(await server.stop(), server.output()).to.equal(0);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    expect(pageErrors).to.deep.equal([]);
    expect(cspViolations).to.deep.equal([]);
  });

  it('turns two-factor sign-in on: a QR code and its key, then recovery codes shown once', async () => {
    await signInWithPassword();
    await heading('Files').waitFor();
    await page.getByRole('link', { name: 'Security' }).click();
    await heading('Security').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the app').fill(await nextCode(secret, 0));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    recoveryCodes = await codes.locator('li code').allTextContents();
    expect(recoveryCodes).to.have.length(10);
    await page.getByRole('button', { name: 'I have saved the codes' }).click();
    await page.getByText('10 recovery codes left').waitFor();
  });

  it('asks for a code after the password; a wrong one can be retried, the right one signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await signInWithPassword();
    await heading('Two-factor sign-in').waitFor();
    await page.getByLabel('Code').fill('not-a-code');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('This code is wrong or already used').waitFor();
    await page.getByLabel('Code').fill(await nextCode(secret));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading('Files').waitFor();
  });

  it('lists the signed-in devices with this one marked, and signs another one out', async () => {
    // Another device: a session opened through the API with a recovery code.
    const login = (await (
      await fetch(`${server.api}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'OtherDevice/2.0' },
        body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      })
    ).json()) as { mfa_token: string };
    const other = (await (
      await fetch(`${server.api}/auth/mfa/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'OtherDevice/2.0' },
        body: JSON.stringify({ mfa_token: login.mfa_token, code: recoveryCodes[0] }),
      })
    ).json()) as { session: { access_token: string } };
    await page.goto(`${server.api}/#/security`);
    await heading('Security').waitFor();
    const table = page.getByTestId('sessions');
    await table.getByText('OtherDevice/2.0').waitFor();
    const current = table.locator('tr[data-current="true"]');
    expect(await current.count()).to.equal(1);
    expect(await current.textContent())
      .to.contain('HangarE2E/1.0')
      .and.contain('this device');
    await table.locator('tr', { hasText: 'OtherDevice/2.0' }).getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await table.getByText('OtherDevice/2.0').waitFor({ state: 'detached' });
    const refused = await fetch(`${server.api}/settings`, { headers: { authorization: `Bearer ${other.session.access_token}` } });
    expect(refused.status).to.equal(401);
  });

  it('turns two-factor sign-in off with a current code; sign-in then needs only the password', async () => {
    await page.getByLabel('Current code (or a recovery code) to turn it off').fill(recoveryCodes[1]);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    const login = await (
      await fetch(`${server.api}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      })
    ).json();
    expect(login).to.have.property('session');
  });
});
