import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { BROWSER_WAIT_MS, launchChromium, skipWithoutChromiumOrFailWithoutDashboard } from '../support/browser.js';

// The Admin section of the dashboard (docs/admin.md) in Debian's headless Chromium against the real
// server process: shown to administrators only; a user found by search, suspended after typing
// its e-mail, reinstated; the audit log; every tab and a user's page axe-clean, at desktop and
// phone widths; and the same path with the keyboard alone (Tab, Shift+Tab, Enter, Space and
// typing), the focus visible on every control it passes.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PHONE = { width: 390, height: 844 };
const ROOT = 'root@example.com';
const MEMBER = 'member.of.the.team@example.com';
const KEYBOARD_MEMBER = 'reached.by.keyboard@example.com';
const PASSWORD = 'dashboard secret';

describe('Dashboard in a real browser: the Admin section', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let memberKey = '';
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const heading = (name: string | RegExp, level = 1) => page.getByRole('heading', { level, name });

  const signIn = async (email: string) => {
    await page.goto(`${server.api}/#/signin`);
    await heading('Sign in').waitFor();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading('Files').waitFor();
  };
  const register = async (email: string) => {
    const registered = await fetch(`${server.api}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(registered.status).to.equal(201);
    await fetch(`${server.api}/auth/confirm?token=${await mailedToken({ dataDir }, email, '/auth/confirm')}`, { redirect: 'manual' });
  };
  const expectAxeClean = async (where: string) => {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate<{ id: string; impact: string; help: string; nodes: string[] }[]>(`
      window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })
        .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`);
    expect(violations, `axe-core on ${where}:\n${violations.map((v) => `${v.id} (${v.impact}): ${v.help} → ${v.nodes.join(', ')}`).join('\n')}`).to.deep.equal(
      [],
    );
  };
  const sidewaysAtPhoneWidth = () =>
    page.evaluate<string[]>(`(() => {
      const width = window.innerWidth;
      const problems = [];
      if (document.documentElement.scrollWidth > width) problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
      return problems;
    })()`);
  const memberStatus = async () => (await fetch(`${server.api}/files`, { headers: { 'x-api-key': memberKey } })).status;

  before(async function () {
    skipWithoutChromiumOrFailWithoutDashboard(this);
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-e2e-admin-'));
    const [port, contentPort] = [await freePort(), await freePort()];
    server = await startServerProcess({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      PUBLIC_API_URL: `http://127.0.0.1:${port}`,
      PUBLIC_CONTENT_URL: `http://127.0.0.1:${contentPort}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      ADMIN_EMAILS: ROOT,
    });
    await register(ROOT);
    await register(MEMBER);
    await register(KEYBOARD_MEMBER);
    const login = (await (
      await fetch(`${server.api}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: MEMBER, password: PASSWORD }),
      })
    ).json()) as { session: { access_token: string } };
    const key = (await (
      await fetch(`${server.api}/auth/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${login.session.access_token}` },
        body: '{}',
      })
    ).json()) as { key: string };
    memberKey = key.key;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, userAgent: 'HangarE2E/1.0 (Chromium)' });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
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

  it('does not show the Admin section to an ordinary account, and sends it back to Files from #/admin', async () => {
    await signIn(MEMBER);
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Admin' }).count()).to.equal(0);
    await page.goto(`${server.api}/#/admin`);
    await heading('Files').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
  });

  it('finds an account by search, suspends it only once its e-mail is typed, and reinstates it', async () => {
    await signIn(ROOT);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Admin' }).click();
    await heading('Admin').waitFor();
    await heading('Users', 2).waitFor();
    await expectAxeClean('Admin: Users');
    await page.getByLabel('Search by e-mail').fill('member.of');
    await page.getByRole('button', { name: MEMBER }).click();
    await heading(MEMBER, 2).waitFor();
    await expectAxeClean("Admin: a user's page");
    await page.getByRole('button', { name: 'Suspend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Suspend?' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Suspend' });
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel(/Type .* to confirm/).fill('someone.else@example.com');
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel(/Type .* to confirm/).fill(MEMBER);
    await confirm.click();
    await page.getByText('Suspend: done.').waitFor();
    await page.getByText(/suspended since/).waitFor();
    expect(await memberStatus()).to.equal(403);
    await page.getByRole('button', { name: 'Reinstate' }).click();
    await page.getByText('Reinstate: done.').waitFor();
    expect(await memberStatus()).to.equal(200);
    expect(await page.getByRole('cell', { name: 'suspend', exact: true }).count()).to.equal(1);
  });

  it('shows invites, plans, the instance and the audit log, each axe-clean, and fits a phone', async () => {
    await page.getByRole('button', { name: '← All users' }).click();
    for (const [tab, title] of [
      ['Invites', 'Invites'],
      ['Plans', 'Plans'],
      ['Instance', 'Instance'],
      ['Audit', 'Audit log'],
      ['Users', 'Users'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Admin' }).getByRole('button', { name: tab }).click();
      await heading(title, 2).waitFor();
      await expectAxeClean(`Admin: ${tab}`);
    }
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('button', { name: 'Audit' }).click();
    await page.getByRole('cell', { name: 'reinstate', exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('button', { name: 'Instance' }).click();
    await heading(/Files and bytes uploaded per day/, 3).waitFor();
    await page.getByRole('columnheader', { name: 'Bytes' }).waitFor();
    await page.setViewportSize(PHONE);
    for (const [tab, title] of [
      ['Users', 'Users'],
      ['Invites', 'Invites'],
      ['Plans', 'Plans'],
      ['Instance', 'Instance'],
      ['Audit', 'Audit log'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Admin' }).getByRole('button', { name: tab }).click();
      await heading(title, 2).waitFor();
      await page.waitForTimeout(100);
      expect(await sidewaysAtPhoneWidth(), `${tab} at ${PHONE.width} px`).to.deep.equal([]);
      await expectAxeClean(`Admin: ${tab} at ${PHONE.width} px`);
    }
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('button', { name: 'Users' }).click();
    await page.getByRole('button', { name: MEMBER }).click();
    await heading(MEMBER, 2).waitFor();
    expect(await sidewaysAtPhoneWidth(), `a user's page at ${PHONE.width} px`).to.deep.equal([]);
    await expectAxeClean(`Admin: a user's page at ${PHONE.width} px`);
    await page.getByRole('button', { name: '← All users' }).click();
  });

  /** What has the focus: its tag, an approximation of its accessible name, and whether the focus is drawn. */
  const focused = () =>
    page.evaluate<{ tag: string; name: string; inDialog: boolean; inAdminNav: boolean; drawn: boolean }>(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return { tag: 'BODY', name: '', inDialog: false, inAdminNav: false, drawn: true };
      const style = getComputedStyle(el);
      const label = el.getAttribute('aria-label') || (el.labels && el.labels[0] ? el.labels[0].childNodes[0].textContent : '') || el.textContent || '';
      return {
        tag: el.tagName,
        name: label.trim(),
        inDialog: !!el.closest('dialog'),
        inAdminNav: !!el.closest('nav[aria-label="Admin"]'),
        drawn: el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
      };
    })()`);
  /** Presses Tab (Shift+Tab when `back`) until `wanted` has the focus; every control passed on the way must show it. */
  const tabTo = async (what: string, wanted: (f: Awaited<ReturnType<typeof focused>>) => boolean, { back = false } = {}) => {
    const passed: string[] = [];
    for (let presses = 0; presses < 80; presses++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      const f = await focused();
      passed.push(`${f.tag} "${f.name}"`);
      expect(f.drawn, `the focus is visible on ${f.tag} "${f.name}"`).to.equal(true);
      if (wanted(f)) return;
    }
    expect.fail(`${what}: not reached with ${back ? 'Shift+Tab' : 'Tab'}; passed ${passed.join(', ')}`);
  };

  it('is usable with the keyboard alone: reaches Users, opens an account, suspends it after typing its e-mail, and finds it in Audit', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.api}/#/files`);
    await heading('Files').waitFor();
    await tabTo('the Admin link', (f) => f.tag === 'A' && f.name === 'Admin');
    await page.keyboard.press('Enter');
    await heading('Admin').waitFor();
    await tabTo('the Users tab', (f) => f.inAdminNav && f.name === 'Users');
    await page.keyboard.press('Space');
    await heading('Users', 2).waitFor();
    await tabTo('the search field', (f) => f.tag === 'INPUT' && f.name === 'Search by e-mail');
    await page.keyboard.type('reached.by');
    await page.getByRole('button', { name: KEYBOARD_MEMBER }).waitFor();
    await tabTo('the account', (f) => f.tag === 'BUTTON' && f.name === KEYBOARD_MEMBER);
    await page.keyboard.press('Enter');
    await heading(KEYBOARD_MEMBER, 2).waitFor();
    await tabTo('Suspend', (f) => f.tag === 'BUTTON' && f.name === 'Suspend' && !f.inDialog);
    await page.keyboard.press('Space');
    const dialog = page.getByRole('dialog', { name: 'Suspend?' });
    await dialog.waitFor();
    await tabTo('the confirmation field', (f) => f.inDialog && f.tag === 'INPUT');
    await page.keyboard.type(KEYBOARD_MEMBER);
    await tabTo("the dialog's Suspend", (f) => f.inDialog && f.tag === 'BUTTON' && f.name === 'Suspend');
    await page.keyboard.press('Enter');
    await page.getByText('Suspend: done.').waitFor();
    await page.getByText(/suspended since/).waitFor();
    // The focus came back from the dialog to the page: Shift+Tab leads back up to the Admin tabs.
    expect((await focused()).inDialog).to.equal(false);
    await tabTo('the Audit tab', (f) => f.inAdminNav && f.name === 'Audit', { back: true });
    await page.keyboard.press('Enter');
    await heading('Audit log', 2).waitFor();
    const row = page
      .getByRole('row')
      .filter({ hasText: KEYBOARD_MEMBER })
      .filter({ has: page.getByRole('cell', { name: 'suspend', exact: true }) });
    await row.first().waitFor();
    expect(await row.count()).to.equal(1);
  });

  it('asks an administrator to sign in again when the session predates the second factor the account now has', async () => {
    // This browser's session of ROOT was opened before; another session turns TOTP on.
    const json = { 'content-type': 'application/json' };
    const login = (await (
      await fetch(`${server.api}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: ROOT, password: PASSWORD }) })
    ).json()) as { session: { access_token: string } };
    const auth = { ...json, authorization: `Bearer ${login.session.access_token}` };
    const { secret } = (await (await fetch(`${server.api}/auth/mfa/totp`, { method: 'POST', headers: auth })).json()) as { secret: string };
    const code = await new OtplibTotp().codeAt({ secret, at: new Date() });
    expect((await fetch(`${server.api}/auth/mfa/totp/verify`, { method: 'POST', headers: auth, body: JSON.stringify({ code }) })).status).to.equal(200);

    await page.goto(`${server.api}/#/files`);
    await heading('Files').waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Admin' }).click();
    await page.getByText(/this session was opened without it/).waitFor();
    expect(await page.getByRole('navigation', { name: 'Admin' }).count(), 'no Admin tabs').to.equal(0);
    await expectAxeClean('Admin: sign in again');
    await page.getByRole('button', { name: 'Sign out and sign in again' }).click();
    await heading('Sign in').waitFor();
  });
});
