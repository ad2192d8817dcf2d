import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// The Webhooks screen of the dashboard (docs/webhooks.md) in Debian's headless Chromium against the real
// server process and a local receiver: add an endpoint with event checkboxes, copy its secret (shown
// once), send a test, read the delivery log, retry a delivery, delete the endpoint.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const EMAIL = 'webhooks-e2e@example.com';
const PASSWORD = 'dashboard secret';

describe('Dashboard in a real browser: webhooks', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;
  let receiver: WebhookReceiver;
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

  /** axe-core (WCAG 2.x A and AA, best practices) on the page as it is; fails on any violation. */
  const expectAccessible = async (screen: string) => {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate<{ id: string; help: string; nodes: string[] }[]>(`
      window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })
        .then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`);
    expect(violations, `axe-core on ${screen}:\n${violations.map((v) => `${v.id}: ${v.help} → ${v.nodes.join(', ')}`).join('\n')}`).to.deep.equal([]);
  };

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-webhooks-'));
    receiver = await WebhookReceiver.start();
    const [port, contentPort] = [await freePort(), await freePort()];
    server = await startServerProcess({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      PUBLIC_API_URL: `http://127.0.0.1:${port}`,
      PUBLIC_CONTENT_URL: `http://127.0.0.1:${contentPort}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
    expect((await json('/auth/register', { method: 'POST', body: { email: EMAIL, password: PASSWORD } })).status).to.equal(201);
    await fetch(`${server.api}/auth/confirm?token=${await mailedToken({ dataDir }, EMAIL, '/auth/confirm')}`, { redirect: 'manual' });
    const login = (await json('/auth/login', { method: 'POST', body: { email: EMAIL, password: PASSWORD } })).body;
    apiKey = (await json('/auth/api-keys', { method: 'POST', token: login.session.access_token, body: { name: 'e2e' } })).body.key;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
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
    await receiver?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    expect(pageErrors).to.deep.equal([]);
  });

  it('adds an endpoint with the events ticked, shows its secret once with a copy button, and delivers an upload to it', async () => {
    await page.goto(`${server.api}/#/files`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await expectAccessible('Webhooks (empty)');
    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('Endpoint URL').fill(receiver.url('/dash'));
    await form.getByLabel('Description').fill('my app');
    await form.getByRole('checkbox', { name: /file\.updated/ }).uncheck();
    await form.getByRole('checkbox', { name: /share\.created/ }).check();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret).to.match(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(secret);
    await expectAccessible('Webhooks (new secret)');
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    await page.getByTestId('webhook-secret').waitFor({ state: 'detached' });
    const row = page
      .getByTestId('webhooks')
      .getByRole('row')
      .filter({ hasText: receiver.url('/dash') });
    expect(await row.textContent())
      .to.include('file.created, file.deleted, share.created')
      .and.include('my app')
      .and.include('on');

    await fetch(`${server.api}/files`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'text/plain', 'x-file-name': 'hi.txt' }, body: 'hi' });
    const [created] = await receiver.waitFor(1, { type: 'file.created' });
    WebhookReceiver.verify(created, secret);
    expect(created.payload.data.name).to.equal('hi.txt');
  });

  it('sends a test event, shows it in the delivery log, and sends it again with Retry', async () => {
    const row = page
      .getByTestId('webhooks')
      .getByRole('row')
      .filter({ hasText: receiver.url('/dash') });
    await row.getByRole('button', { name: 'Send test' }).click();
    await page.getByText(`A test event is on its way to ${receiver.url('/dash')}.`).waitFor();
    const [tested] = await receiver.waitFor(1, { type: 'webhook.test' });
    const log = page.getByTestId('deliveries');
    const testRow = log.getByRole('row').filter({ hasText: 'webhook.test' });
    for (let i = 0; i < 20 && !(await testRow.textContent().catch(() => ''))?.includes('delivered'); i++) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(150);
    }
    expect(await testRow.textContent())
      .to.include('delivered')
      .and.include('204');
    await expectAccessible('Webhooks (delivery log)');
    await testRow.getByRole('button', { name: 'Retry' }).click();
    const again = await receiver.waitFor(2, { type: 'webhook.test' });
    expect(again[1].headers['webhook-id']).to.equal(tested.headers['webhook-id']);
  });

  it('turns an endpoint off and deletes it after confirmation', async () => {
    const row = page
      .getByTestId('webhooks')
      .getByRole('row')
      .filter({ hasText: receiver.url('/dash') });
    await row.getByRole('button', { name: 'Turn off' }).click();
    await row.getByRole('button', { name: 'Turn on' }).waitFor();
    expect((await json('/webhooks', { key: apiKey })).body.webhooks[0].enabled).to.equal(false);
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks yet.').waitFor();
    expect((await json('/webhooks', { key: apiKey })).body.webhooks).to.deep.equal([]);
  });
});
