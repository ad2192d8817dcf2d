import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type CDPSession, type Page } from 'playwright-core';
import { mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// Passkeys end to end: Debian's headless Chromium with a virtual authenticator (the DevTools
// protocol's WebAuthn domain: a CTAP2 platform authenticator with resident keys and user
// verification) against the real server process. The dashboard is served from PUBLIC_API_URL,
// here http://localhost:<port>: localhost is a secure context over plain HTTP, and a relying party
// id must be a host name, not 127.0.0.1.

const EMAIL = 'passkey.walkthrough@example.com';

describe('Passkeys in a real browser (register a passkey → sign out → sign in with it)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let base: string;
  const pageErrors: string[] = [];
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-passkeys-'));
    const [port, contentPort] = [await freePort(), await freePort()];
    base = `http://localhost:${port}`;
    server = await startServerProcess({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      PUBLIC_API_URL: base,
      PUBLIC_CONTENT_URL: `http://localhost:${contentPort}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  });

  after(async () => {
    await browser?.close();
    if (server) {
      const code = await server.stop();
      expect(code, server.output()).to.equal(0);
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(pageErrors, 'errors thrown in the page').to.deep.equal([]);
  });

  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

  it('adds a passkey in the Passkeys section of the settings, held by the authenticator as a discoverable credential', async () => {
    const registered = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: 'passkey walkthrough' }),
    });
    expect(registered.status).to.equal(201);
    await page.goto(`${base}/auth/confirm?token=${await mailedToken({ dataDir }, EMAIL, '/auth/confirm')}`);
    await heading('Files').waitFor();

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 2, name: 'Passkeys' }).waitFor();
    await page.getByText('No passkeys yet.').waitFor();
    await page.getByLabel('Passkey name').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Added the passkey “Laptop”.').waitFor();
    await page.getByTestId('passkeys').getByRole('cell', { name: 'Laptop', exact: true }).waitFor();
    const held = await credentials();
    expect(held).to.have.length(1);
    expect(held[0]).to.include({ isResidentCredential: true, rpId: 'localhost' });
  });

  it('signs out, then signs in with the passkey alone, and the list shows its last use', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await heading('Files').waitFor();
    expect(await page.evaluate<string | null>("localStorage.getItem('hangar.refresh_token')")).to.be.a('string');
    expect((await credentials())[0].signCount, 'the authenticator signed once more').to.be.greaterThan(0);

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 2, name: 'Passkeys' }).waitFor();
    const row = page.getByTestId('passkeys').getByRole('row', { name: /Laptop/ });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).to.not.equal('never');
  });

  it('renames and deletes the passkey, after which it no longer signs in', async () => {
    await page.getByRole('button', { name: 'Rename Laptop' }).click();
    await page.getByLabel('New name').fill('Work laptop');
    await page.getByTestId('passkeys').getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('passkeys').getByRole('cell', { name: 'Work laptop', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete Work laptop' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No passkeys yet.').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('This passkey is not registered with this service.', { exact: false }).waitFor();
    await heading('Sign in').waitFor();
  });
});
