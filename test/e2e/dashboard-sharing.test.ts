import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { makePng, randomFileOf } from '../support/bytes.js';
import { mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// The private-file controls of the dashboard (docs/private-files.md) in Debian's headless Chromium against the
// real server process: the public/private toggle and rename, a signed link, a share link with a
// password, expiry at upload, and the counts.

const EMAIL = 'sharing@example.com';
const PASSWORD = 'dashboard secret';

describe('Dashboard in a real browser: private files, signed links and share links', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let apiKey: string;
  const pageErrors: string[] = [];

  const json = async (
    pathname: string,
    init: { method?: string; body?: unknown; token?: string; key?: string } = {},
  ): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = {};
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.key) headers['x-api-key'] = init.key;
    const response = await fetch(server.api + pathname, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
  };

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-sharing-'));
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
    // The account is made through the API; the dashboard then starts from its refresh token.
    expect((await json('/auth/register', { method: 'POST', body: { email: EMAIL, password: PASSWORD } })).status).to.equal(201);
    await fetch(`${server.api}/auth/confirm?token=${await mailedToken({ dataDir }, EMAIL, '/auth/confirm')}`, { redirect: 'manual' });
    const login = (await json('/auth/login', { method: 'POST', body: { email: EMAIL, password: PASSWORD } })).body;
    apiKey = (await json('/auth/api-keys', { method: 'POST', token: login.session.access_token, body: { name: 'e2e' } })).body.key;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.api });
    const token = JSON.stringify(login.session.refresh_token);
    await context.addInitScript({ content: `if (!localStorage.getItem('hangar.refresh_token')) localStorage.setItem('hangar.refresh_token', ${token});` });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
  });

  after(async () => {
    await browser?.close();
    if (server) expect(await server.stop(), server.output()).to.equal(0);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    expect(pageErrors).to.deep.equal([]);
  });

  const upload = async (bytes: Uint8Array, name: string, query = '') => {
    const response = await fetch(`${server.api}/files${query}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'image/png', 'x-file-name': name },
      body: bytes,
    });
    return ((await response.json()) as { file: any }).file;
  };
  /** Closes the details left open by the test before (a reload would race the session refresh). */
  const closeDialog = async () => {
    const open = page.getByRole('dialog');
    if ((await open.count()) > 0) await open.getByRole('button', { name: 'Close', exact: true }).first().click();
  };
  const openDetails = async (name: string) => {
    await closeDialog();
    // Through another screen, so the list is loaded again with the files uploaded meanwhile.
    await page.goto(`${server.api}/#/keys`);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.goto(`${server.api}/#/files`);
    await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    await page.getByRole('button', { name: `Details of ${name}` }).click();
    return page.getByRole('dialog');
  };

  it('makes a private file public and renames it from its details; the view address then serves it', async () => {
    const file = await upload(makePng(), 'secret.png', '?isPublic=false');
    const dialog = await openDetails('secret.png');
    await dialog.getByRole('checkbox', { name: /Public/ }).check();
    await dialog.getByText('View address').waitFor();
    expect((await json(`/files/${file.file_id}`, { key: apiKey })).body.is_public).to.equal(true);
    expect((await fetch(`${server.content}/m/${file.file_id}`)).status).to.equal(200);
    await dialog.getByLabel('Name').fill('renamed.png');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('dialog', { name: 'renamed.png' }).waitFor();
    expect((await json(`/files/${file.file_id}`, { key: apiKey })).body.name).to.equal('renamed.png');
    await dialog.getByRole('checkbox', { name: /Public/ }).uncheck();
    await dialog.getByText('Private: no public address').waitFor();
    expect((await fetch(`${server.content}/m/${file.file_id}`)).status).to.equal(404);
  });

  it('copies a signed link for the lifetime picked, which serves the private file', async () => {
    const file = await upload(randomFileOf(500, 'image/png', 51), 'signed.png', '?isPublic=false');
    const dialog = await openDetails('signed.png');
    await dialog.getByLabel('Valid for').selectOption({ label: '1 day' });
    await dialog.getByRole('button', { name: 'Copy signed link' }).click();
    const link = await dialog.locator('a.signed-url').textContent();
    expect(link).to.match(new RegExp(`/s/${file.file_id}\\?expires=\\d+&signature=`));
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(link);
    const expires = Number(new URL(link!).searchParams.get('expires'));
    expect(expires * 1000 - Date.now()).to.be.within(86_000_000, 86_500_000);
    expect((await fetch(link!)).status).to.equal(200);
  });

  it('creates a share link with a password, lists it with its count, downloads through its page, and revokes it', async () => {
    const file = await upload(randomFileOf(700, 'image/png', 52), 'shared.png', '?isPublic=false');
    const dialog = await openDetails('shared.png');
    await dialog.getByLabel('Password (optional)').fill('let me in');
    await dialog.getByLabel('Max downloads').fill('2');
    await dialog.getByRole('button', { name: 'Create share link' }).click();
    const item = dialog.getByRole('list', { name: 'Share links' }).getByRole('listitem');
    await item.getByText('0 of 2 downloads · password').waitFor();
    const url = (await item.getByRole('link').textContent())!;

    const visitor = await context.newPage();
    await visitor.goto(url);
    await visitor.getByLabel('Password').fill('let me in');
    const [download] = await Promise.all([visitor.waitForEvent('download'), visitor.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).to.equal('shared.png');
    await visitor.close();
    expect((await json(`/files/${file.file_id}/shares`, { key: apiKey })).body.shares[0].downloads).to.equal(1);
    expect((await json(`/files/${file.file_id}`, { key: apiKey })).body.download_count).to.equal(1);

    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('list', { name: 'Share links' }).waitFor({ state: 'detached' });
    expect((await fetch(url)).status).to.equal(404);
  });

  it('uploads with an expiry picked before the upload, shown in the details', async () => {
    await closeDialog();
    await page.goto(`${server.api}/#/files`);
    await page.getByLabel('Delete uploads after').selectOption({ label: '1 day' });
    await page.locator('input[type=file]').setInputFiles([{ name: 'brief.png', mimeType: 'image/png', buffer: Buffer.from(makePng()) }]);
    await page.getByRole('list', { name: 'Uploads' }).getByText('Uploaded').waitFor();
    const listed = (await json('/files?q=brief', { key: apiKey })).body.files[0];
    expect(Date.parse(listed.expires_at) - Date.now()).to.be.within(86_000_000, 86_500_000);
    const dialog = await openDetails('brief.png');
    await dialog.getByText(/^Deleted automatically/).waitFor();
  });
});
