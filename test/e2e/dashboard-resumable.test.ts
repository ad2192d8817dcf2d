import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// Resumable uploads in the dashboard (docs/api.md, "Resumable uploads"), in Debian's headless Chromium
// against the real server process: a 50 MiB file goes through tus, is paused and resumed, paused
// again, and after a page reload continues (the same file chosen again) to a complete file.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const EMAIL = 'resumable@example.com';
const PASSWORD = 'dashboard secret';
const MIB = 1024 * 1024;
const SIZE = 50 * MIB;

/** 50 MiB of numbered text lines, so that a byte out of place changes the digest. */
function bigText(): Buffer {
  const bytes = Buffer.alloc(SIZE);
  let at = 0;
  for (let line = 0; at < SIZE; line++) at += bytes.write(`line ${String(line).padStart(9, '0')} of a resumable upload\n`, at);
  return bytes;
}

describe('Dashboard in a real browser: resumable upload of a large file', function () {
  this.timeout(180_000);
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let apiKey: string;
  let filePath: string;
  let bytes: Buffer;
  const pageErrors: string[] = [];
  /** Upload-Offset of every PATCH the page sent, in order. */
  const patches: number[] = [];

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

  const expectAccessible = async (screen: string) => {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate<{ id: string; impact: string; help: string; nodes: string[] }[]>(`
      window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })
        .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`);
    expect(violations, `axe-core on ${screen}:\n${violations.map((v) => `${v.id} (${v.impact}): ${v.help} → ${v.nodes.join(', ')}`).join('\n')}`).to.deep.equal(
      [],
    );
  };

  /** Upload speed of the page, bytes per second (Chrome DevTools network emulation), so that a pause lands midway. */
  const throttle = async (bytesPerSecond: number) => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
  };

  const progressOf = async () => Number(await page.getByRole('progressbar', { name: 'Upload of big.txt' }).getAttribute('value'));

  const waitForProgress = async (atLeast: number) => {
    const deadline = Date.now() + 60_000;
    while ((await progressOf()) < atLeast) {
      if (Date.now() > deadline) throw new Error(`the upload stayed below ${atLeast}`);
      await page.waitForTimeout(100);
    }
  };

  const openFiles = async () => {
    await page.goto(`${server.api}/#/files`);
    await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    await throttle(10 * MIB);
  };

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-resumable-'));
    bytes = bigText();
    filePath = path.join(dataDir, 'big.txt');
    await writeFile(filePath, bytes);
    const [port, contentPort] = [await freePort(), await freePort()];
    server = await startServerProcess({
      DATA_DIR: path.join(dataDir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      PUBLIC_API_URL: `http://127.0.0.1:${port}`,
      PUBLIC_CONTENT_URL: `http://127.0.0.1:${contentPort}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
    });
    expect((await json('/auth/register', { method: 'POST', body: { email: EMAIL, password: PASSWORD } })).status).to.equal(201);
    await fetch(`${server.api}/auth/confirm?token=${await mailedToken({ dataDir: path.join(dataDir, 'data') }, EMAIL, '/auth/confirm')}`, {
      redirect: 'manual',
    });
    const login = (await json('/auth/login', { method: 'POST', body: { email: EMAIL, password: PASSWORD } })).body;
    apiKey = (await json('/auth/api-keys', { method: 'POST', token: login.session.access_token, body: { name: 'e2e' } })).body.key;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    const token = JSON.stringify(login.session.refresh_token);
    await context.addInitScript({ content: `if (!localStorage.getItem('hangar.refresh_token')) localStorage.setItem('hangar.refresh_token', ${token});` });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && new URL(request.url()).pathname.startsWith('/files/resumable/'))
        patches.push(Number(request.headers()['upload-offset']));
    });
  });

  after(async () => {
    await browser?.close();
    if (server) expect(await server.stop(), server.output()).to.equal(0);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    expect(pageErrors).to.deep.equal([]);
  });

  it('pauses and resumes a 50 MiB upload, continues it after a reload, and the file arrives complete', async () => {
    await openFiles();
    await page.locator('input[type=file]').setInputFiles(filePath);
    await waitForProgress(0.2);
    await page.getByRole('button', { name: 'Pause upload of big.txt' }).click();
    await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
    await expectAccessible('Files with a paused upload');
    const paused = await progressOf();
    await page.waitForTimeout(1_500);
    expect(await progressOf(), 'no progress while paused').to.equal(paused);
    expect((await json('/files', { key: apiKey })).body.files, 'nothing listed before the upload completes').to.deep.equal([]);

    const sentBeforeResume = patches.length;
    await page.getByRole('button', { name: 'Resume upload of big.txt' }).click();
    await waitForProgress(paused + 0.2);
    expect(patches[sentBeforeResume], 'the resumed upload continues from where it stopped').to.be.greaterThan(0);
    await page.getByRole('button', { name: 'Pause upload of big.txt' }).click();
    await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();

    // A reload forgets the File; the dashboard lists the unfinished upload and continues it when the same file is chosen again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    await throttle(10 * MIB);
    const unfinished = page.getByRole('region', { name: 'Unfinished uploads' });
    await unfinished.getByText('big.txt').waitFor();
    await expectAccessible('Files with an unfinished upload from before a reload');
    const sentBeforeReload = patches.length;
    await page.locator('input[type=file]').setInputFiles(filePath);
    await page
      .getByRole('list', { name: 'Uploads' })
      .getByText(/^Uploaded/)
      .waitFor({ timeout: 90_000 });
    expect(patches[sentBeforeReload], 'after the reload the upload continues, not from zero').to.be.greaterThan(0.3 * SIZE);
    expect(await unfinished.count()).to.equal(0);

    const files = (await json('/files', { key: apiKey })).body.files as Array<{ file_id: string; name: string; size: number }>;
    expect(files.map((file) => [file.name, file.size])).to.deep.equal([['big.txt', SIZE]]);
    const download = Buffer.from(await (await fetch(`${server.content}/m/${files[0].file_id}`)).arrayBuffer());
    expect(createHash('sha256').update(download).digest('hex')).to.equal(createHash('sha256').update(bytes).digest('hex'));
  });
});
