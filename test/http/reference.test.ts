import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS from 'openapi-typescript';
import { generateApi } from 'swagger-typescript-api';
import { call, mailedToken, startTestServer, type TestServer } from '../support/http-harness.js';
import { launchChromium, skipWithoutChromium } from '../support/browser.js';

/** The project's own compiler (TypeScript 7 has no programmatic API yet: it runs as a program). */
const TSC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../node_modules/typescript/bin/tsc');

describe('HTTP: reference endpoints (OpenAPI, agent guide, docs)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let document: any;
  before(async () => {
    server = await startTestServer({ TRIAL_DAYS: '30', FILE_COUNT_LIMIT: '500', ALLOWED_CONTENT_TYPES: 'image/png,text/plain,application/pdf' });
    document = (await call(server.api, '/reference/openapi.json')).body;
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('publishes an OpenAPI 3.0.3 document that a real validator accepts', async () => {
    expect(document.openapi).to.equal('3.0.3');
    const result = await new Validator().validate(document);
    expect(result.valid, JSON.stringify(result.errors)).to.equal(true);
  });

  it('passes Redocly’s recommended lint rules, but for redirects as the success of /auth/confirm, GET /auth/reset-password and the single sign-on navigations, a licence without a URL, and the tus upload URL', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const found = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    // /auth/confirm answers 302 (to the dashboard, signed in) or 400 (the link is unusable), and the
    // reset link of older e-mails, GET /auth/reset-password, 302 to the dashboard's reset screen, and the
    // single sign-on's start and callback 302 to the provider or the dashboard: no 2xx to declare.
    // UNLICENSED (no licence granted, apps/api/routes/reference.ts) has no licence text to link to.
    // /files/resumable (the tus endpoint the issue names) has the shape of /files/{id}/…; routing
    // is unambiguous: the literal `resumable` (9 characters) is never a file id (10).
    expect(
      found.filter((p) => p.startsWith('warn no-ambiguous-paths')).every((p) => p.includes('`/files/resumable/{upload_id}`')),
      found.join('\n'),
    ).to.equal(true);
    expect(found.filter((p) => !p.startsWith('warn no-ambiguous-paths'))).to.deep.equal([
      'warn info-license-strict #/info/license/url: License object should contain `url` field.',
      'warn operation-2xx-response #/paths/~1auth~1confirm/get/responses: Operation must have at least one `2XX` response.',
      'warn operation-2xx-response #/paths/~1auth~1reset-password/get/responses: Operation must have at least one `2XX` response.',
      'warn operation-2xx-response #/paths/~1auth~1oidc~1start/get/responses: Operation must have at least one `2XX` response.',
      'warn operation-2xx-response #/paths/~1auth~1oidc~1callback/get/responses: Operation must have at least one `2XX` response.',
    ]);
  });

  it('marks parameters with a default as optional, types the image parameters, describes every tag, and gives every operation a 4xx answer', () => {
    for (const route of ['/files', '/auth/api-keys', '/logs']) {
      const parameters = document.paths[route].get.parameters;
      expect(parameters.find((p: any) => p.name === 'page')).to.deep.include({
        required: false,
        schema: { minimum: 1, maximum: 90071992547409, default: 1, type: 'integer' },
      });
      expect(parameters.find((p: any) => p.name === 'limit')).to.deep.include({
        required: false,
        schema: { minimum: 1, maximum: 100, default: 30, type: 'integer' },
      });
    }
    for (const method of ['get', 'head']) {
      const schemas = Object.fromEntries(document.paths['/m/{id}'][method].parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]));
      expect(schemas).to.deep.equal({
        w: { type: 'integer', minimum: 1, maximum: 4096 },
        h: { type: 'integer', minimum: 1, maximum: 4096 },
        fit: { type: 'string', enum: ['cover', 'contain', 'fill', 'inside', 'outside'] },
        format: { type: 'string', enum: ['webp', 'avif', 'jpeg', 'png', 'auto'] },
        q: { type: 'integer', minimum: 1, maximum: 100 },
      });
    }
    expect(document.tags.map((t: any) => t.name)).to.have.length.above(5);
    for (const tag of document.tags) expect(tag.description, tag.name).to.be.a('string').and.not.equal('');
    for (const [route, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (method === 'servers') continue;
        expect(
          Object.keys(operation.responses).some((status) => status.startsWith('4')),
          `${method} ${route}`,
        ).to.equal(true);
      }
    }
    expect(document.paths['/healthz'].get.responses['4XX'].description).to.include('before routing');
    expect(document.info.license).to.deep.equal({ name: 'UNLICENSED' });
  });

  it('generates types with openapi-typescript, without a complaint, that a strict TypeScript program can use as documented', async function () {
    this.timeout(30_000);
    const complaints: string[] = [];
    const [warn, error] = [console.warn, console.error];
    console.warn = console.error = (...args: unknown[]) => complaints.push(args.join(' '));
    let types: string;
    try {
      types = await openapiTS(document);
    } finally {
      [console.warn, console.error] = [warn, error];
    }
    expect(complaints).to.deep.equal([]);
    const dir = await mkdtemp(path.join(tmpdir(), 'hangar-openapi-ts-'));
    try {
      await writeFile(path.join(dir, 'api.d.ts'), types);
      // Omitted defaults, numbers for the image sizes and quality, and the documented values of fit and format.
      await writeFile(
        path.join(dir, 'use.ts'),
        [
          "import type { components, paths } from './api.js';",
          "export const firstPage: NonNullable<paths['/files']['get']['parameters']['query']> = {};",
          "export const keys: NonNullable<paths['/auth/api-keys']['get']['parameters']['query']> = { limit: 100 };",
          "export const thumbnail: NonNullable<paths['/m/{id}']['get']['parameters']['query']> = { w: 320, h: 240, fit: 'cover', format: 'webp', q: 80 };",
          "export const domain: components['schemas']['Settings']['custom_domain'] = null;",
          '',
        ].join('\n'),
      );
      const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', '', 'use.ts'];
      const compiled = await promisify(execFile)(process.execPath, [TSC, ...args], { cwd: dir }).catch(
        (failure: { stdout: string; stderr: string }) => failure,
      );
      expect(`${compiled.stdout}${compiled.stderr}`).to.equal('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('describes every resource, the three credentials and each operation’s security', () => {
    expect(document.components.schemas).to.include.keys('File', 'Settings', 'Usage', 'LogEntry', 'ApiKey', 'User', 'Session', 'Error', 'Profile');
    expect(document.components.securitySchemes).to.deep.include({
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: document.components.securitySchemes.apiKeyHeader.description },
    });
    expect(document.components.securitySchemes.bearerJwt).to.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(document.components.securitySchemes.bearerApiKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/auth/api-keys'].get.security).to.deep.equal([{ bearerJwt: [] }]);
    expect(document.paths['/auth/api-keys'].get.responses).to.include.keys('200', '401', '403');
    expect(document.paths['/auth/register'].post.security).to.deep.equal([]);
    expect(document.paths['/files'].get.security).to.deep.equal([{ bearerJwt: [] }, { bearerApiKey: ['files:read'] }, { apiKeyHeader: ['files:read'] }]);
    expect(document.paths['/files'].post.security).to.deep.equal([{ bearerJwt: [] }, { bearerApiKey: ['files:write'] }, { apiKeyHeader: ['files:write'] }]);
    const paths = Object.keys(document.paths);
    for (const p of [
      '/auth/register',
      '/auth/login',
      '/auth/forgot-password',
      '/auth/api-keys/{id}',
      '/files',
      '/files/{id}',
      '/files/bulk-delete',
      '/settings',
      '/usage',
      '/logs',
      '/profile',
      '/reference/allowed-content-types',
      '/reference/for-agents',
      '/reference/openapi.json',
      '/m/{id}',
      '/d/{id}',
    ]) {
      expect(paths).to.include(p);
    }
    expect(document.paths['/m/{id}'].servers[0].url).to.equal('http://cdn.hangar.test');
  });

  it('names the response headers that are the answer: Location, Upload-Offset, ETag, Retry-After', () => {
    const headersOf = (path: string, method: string, status: string) => Object.keys(document.paths[path][method].responses[status].headers ?? {});
    // A 201 without a body: its Location is the answer (tus creation).
    expect(headersOf('/files/resumable', 'post', '201')).to.include.members(['Location', 'Upload-Expires', 'Upload-Offset']);
    expect(headersOf('/files/resumable/{upload_id}', 'patch', '204')).to.include('Upload-Offset');
    expect(headersOf('/files/resumable/{upload_id}', 'head', '200')).to.include.members(['Upload-Offset', 'Upload-Length']);
    expect(headersOf('/d/{id}', 'get', '200')).to.include('ETag');
    expect(headersOf('/d/{id}', 'get', '206')).to.include.members(['ETag', 'Content-Range']);
    expect(headersOf('/d/{id}', 'get', '304')).to.include('ETag');
    expect(headersOf('/m/{id}', 'get', '503')).to.include('Retry-After');
    expect(headersOf('/auth/oidc/start', 'get', '302')).to.include('Location');
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (operation?.responses?.['429']) expect(Object.keys(operation.responses['429'].headers ?? {}), `${method} ${path}`).to.include('Retry-After');
      }
    }
  });

  it('documents the raw binary body of POST /files with its headers, and gives examples', () => {
    const upload = document.paths['/files'].post;
    expect(upload.requestBody.content['application/octet-stream'].schema).to.deep.equal({ type: 'string', format: 'binary' });
    const headers = upload.parameters.filter((p: any) => p.in === 'header').map((p: any) => [p.name, p.required]);
    expect(headers).to.deep.include.members([
      ['content-type', true],
      ['x-file-name', false],
    ]);
    expect(upload.parameters.find((p: any) => p.name === 'isPublic')).to.include({ in: 'query', required: false });
    expect(upload.responses['413'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
    expect(document.components.schemas.File.example).to.be.an('object');
  });

  it('serves the allowed content types as configured', async () => {
    const result = await call(server.api, '/reference/allowed-content-types');
    expect(result.body).to.deep.equal({ content_types: ['image/png', 'text/plain', 'application/pdf'] });
  });

  it('tells an agent everything it needs in a versioned JSON guide, and the same as plain text', async () => {
    const guide = (await call(server.api, '/reference/for-agents')).body;
    expect(guide.schema_version).to.equal(1);
    expect(guide).to.include({
      base_url: 'http://api.hangar.test',
      content_url: 'http://cdn.hangar.test',
      openapi_url: 'http://api.hangar.test/reference/openapi.json',
    });
    expect(guide.authentication.api_key.headers).to.deep.equal(['Authorization: Bearer <API key>', 'X-Api-Key: <API key>']);
    expect(guide.authentication.jwt_only_endpoints).to.include.members(['POST /auth/api-keys', 'GET /auth/api-keys', 'DELETE /auth/api-keys/:id']);
    expect(guide.authentication.jwt_only_endpoints).to.include.members([
      'POST /auth/mfa/totp',
      'POST /auth/mfa/totp/verify',
      'DELETE /auth/mfa/totp',
      'GET /auth/sessions',
      'DELETE /auth/sessions/:id',
    ]);
    expect(guide.authentication.no_auth_endpoints).to.include('POST /auth/mfa/verify');
    expect(guide.authentication.session_token.two_factor).to.include('mfa_token').and.include('POST /auth/mfa/verify');
    expect(guide.quick_start.map((s: any) => s.title)).to.deep.equal([
      'Register',
      'Confirm the e-mail address',
      'Log in',
      'Create an API key',
      'Upload a file',
      'Use the public address',
      'Large files: resumable upload (tus 1.0.0)',
    ]);
    expect(guide.limits.new_account_plan).to.include({ trial_days: 30, file_count_limit: 500 });
    expect(guide.allowed_content_types).to.deep.equal(['image/png', 'text/plain', 'application/pdf']);
    expect(guide.errors.codes).to.include({ FILE_TOO_LARGE: 413, TRIAL_ENDED: 403, EMAIL_NOT_VERIFIED: 403, UNAUTHORIZED: 401 });
    for (const request of [call(server.api, '/reference/for-agents', { headers: { accept: 'text/plain' } }), call(server.api, '/reference/for-agents.txt')]) {
      const text = await request;
      expect(text.headers.get('content-type')).to.match(/^text\/plain/);
      expect(text.body).to.include('# Hangar').and.include('## Quick start').and.include('X-Api-Key').and.include('FILE_TOO_LARGE: 413');
    }
  });

  it('runs the quick start with a client generated from the document (swagger-typescript-api)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hangar-client-'));
    try {
      await writeFile(path.join(dir, 'openapi.json'), JSON.stringify({ ...document, servers: [{ url: server.api }] }));
      await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
      await generateApi({ input: path.join(dir, 'openapi.json'), output: dir, fileName: 'api.ts', httpClientType: 'fetch', toJS: true, silent: true } as any);
      const { Api } = await import(pathToFileURL(path.join(dir, 'api.js')).href);
      const api = new Api({ securityWorker: (token: string | null) => (token ? { headers: { Authorization: `Bearer ${token}` } } : {}) });
      const email = 'generated@example.com';
      await api.auth.register({ email, password: 'client-secret' });
      const token = await mailedToken(server, email, '/auth/confirm');
      await api.auth.confirmEmail({ token }, { redirect: 'manual' }).catch((response: Response) => expect(response.status).to.equal(302));
      const login = await api.auth.login({ email, password: 'client-secret' });
      api.setSecurityData(login.data.session.access_token);
      const key = await api.auth.createApiKey({ name: 'generated' });
      api.setSecurityData(key.data.key);
      const uploaded = await api.files.uploadFile(
        'hello from a generated client',
        { isPublic: true },
        { type: 'text/plain', headers: { 'x-file-name': 'hello.txt' } },
      );
      expect(uploaded.status).to.equal(201);
      const file = uploaded.data.file;
      expect(file).to.include({ name: 'hello.txt', content_type: 'text/plain', size: 29 });
      const publicBytes = await fetch(file.public_url.replace('http://cdn.hangar.test', server.content));
      expect(await publicBytes.text()).to.equal('hello from a generated client');
      const listed = await api.files.listFiles({ limit: 10 });
      expect(listed.data.files.map((f: any) => f.file_id)).to.deep.equal([file.file_id]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('renders the API reference at /docs in a real browser, listing the operations', async function () {
    skipWithoutChromium(this);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const outside: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(server.api)) outside.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(`${server.api}/docs`);
      await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      const operations = await page.$$eval('.opblock-summary', (nodes) => nodes.map((n) => n.textContent ?? ''));
      expect(operations.some((text) => text.includes('/files/bulk-delete'))).to.equal(true);
      expect(operations.some((text) => text.includes('/auth/register'))).to.equal(true);
      expect(operations.length).to.be.at.least(25);
      expect(outside, 'no request leaves the service').to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });
});
