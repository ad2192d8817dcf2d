import { expect } from 'chai';
import fc from 'fast-check';
import { routeTable } from '../../apps/server/route-table.js';
import type { Route } from '../../apps/http/route.js';
import { makePng, randomFileOf } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { FC_SEED, scaled } from './scale.js';

type Json = Record<string, any>;

/** Strings that have broken parsers elsewhere: empty, traversal, NUL and control bytes, unicode, injection, overlong numbers. */
const NASTY = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '../../../etc/passwd',
  '%00',
  '\u0000',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:ldap://x}',
  '😀'.repeat(50),
  'é\u0301',
  '\uFEFF',
  '\uD800',
  'a'.repeat(5000),
  '9'.repeat(400),
  '__proto__',
  'constructor',
];

/** Fields whose schema is a plain string but whose valid values are narrower (so valid cases reach the use case). */
const FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  email: fc.oneof(fc.emailAddress(), fc.constantFrom('fuzz@example.com', 'FUZZ@Example.com ', 'nobody@example.com')),
  password: fc.oneof(fc.string({ minLength: 6, maxLength: 40 }), fc.constant('correct horse')),
  redirect_to: fc.constantFrom('https://app.example.com/welcome', 'https://app.example.com/welcome/next', 'https://evil.example/', 'javascript:alert(1)'),
  custom_domain: fc.oneof(fc.domain(), fc.constantFrom('edge-error.example.com', 'localhost', 'cdn.hangar.test', '1.2.3.4'), fc.constant(null)),
  ids: fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 5 }),
  'content-type': fc.constantFrom(
    'image/png',
    'video/mp4',
    'text/plain',
    'application/pdf',
    'image/svg+xml',
    'text/html',
    'application/x-msdownload',
    'image/png; charset=binary',
  ),
  w: fc.oneof(fc.integer({ min: 1, max: 64 }).map(String), fc.constantFrom('0', '4097', '-5', '1.5', 'abc')),
  h: fc.oneof(fc.integer({ min: 1, max: 64 }).map(String), fc.constantFrom('0', '99999')),
  fit: fc.constantFrom('cover', 'contain', 'fill', 'inside', 'outside', 'stretch'),
  format: fc.constantFrom('webp', 'avif', 'jpeg', 'png', 'auto', 'gif', 'svg'),
  q: fc.constantFrom('1', '50', '100', '0', '101'),
  name: fc.constantFrom('swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', '..%2Fpackage.json', '../../package.json', 'index.html'),
};

/** Values valid for `schema` (TypeBox / JSON Schema), kept small. */
function validOf(schema: Json): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Json[]).map(validOf));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.max(min, Math.min(schema.maxLength ?? 40, 40));
      return fc.oneof(
        fc.string({ minLength: min, maxLength: max }),
        fc.constantFrom(...NASTY.filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity))).map(String),
      );
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? Number.MAX_SAFE_INTEGER });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e12, max: schema.maximum ?? 1e12, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validOf(schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const model = Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, FIELDS[key] ?? validOf(child)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((key: string) => key in model) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Valid values half the time; otherwise any JSON, a nasty string, or a valid object with a field replaced by junk. */
function inputOf(schema: Json | undefined): fc.Arbitrary<unknown> {
  if (!schema) return fc.constant(undefined);
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...NASTY), fc.integer(), fc.constant(undefined));
  const broken =
    schema.type === 'object' && schema.properties
      ? fc
          .tuple(validOf(schema) as fc.Arbitrary<Json>, fc.constantFrom(...Object.keys(schema.properties), 'extra'), junk)
          .map(([value, key, bad]) => ({ ...value, [key]: bad }))
      : junk;
  return fc.oneof({ arbitrary: validOf(schema), weight: 1 }, { arbitrary: broken, weight: 1 });
}

/** Percent-encodes the UTF-8 bytes of `value` (a lone surrogate becomes U+FFFD, as a browser would send it). */
function percentEncode(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

/** Query and header values travel as strings. */
function asStrings(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value as Json)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

/** Which credential a case sends, for a route of this auth. */
const CREDENTIALS = ['none', 'garbage', 'api_key', 'jwt'] as const;

// "A 500 anywhere fails the suite": every route of the table, inputs drawn from its own TypeBox
// schemas (valid and invalid), never a 5xx, always the documented status and body (call() checks
// each answer against the OpenAPI document), and `{ code, message }` for every 4xx in JSON.
describe('Security: fuzzing every route from its schemas', function () {
  this.timeout(300_000);
  let server: TestServer;
  let apiKey: string;
  let accessToken: string;
  let routes: Route[];
  let fileId: string;
  const tally = new Map<string, { cases: number; statuses: Map<number, number> }>();

  before(async () => {
    server = await startTestServer();
    ({ apiKey, accessToken } = await signUpWithKey(server, 'fuzz@example.com'));
    fileId = (await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: makePng() })).body.file.file_id;
    routes = routeTable(server.running.hangar, {
      allowedContentTypes: ['image/png'],
      publicApiUrl: 'http://api.hangar.test',
      publicContentUrl: 'http://cdn.hangar.test',
      defaultPlan: { name: 'default', trialDays: 14, storageLimitBytes: 1, fileCountLimit: 1, maxUploadSizeBytes: 1 },
      defaultMaxUploadSizeBytes: 1,
    });
  });
  after(async () => {
    await server.stop();
    const lines = [...tally].map(
      ([route, { cases, statuses }]) =>
        `      ${route.padEnd(40)} ${String(cases).padStart(5)} cases  ${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    expect(server.internalErrors).to.deep.equal([]);
  });

  const families = ['auth', 'api-keys', 'files', 'settings', 'account', 'reference', 'content', 'health'];
  const perRoute = scaled(40, 1000);

  it(`answers every route’s generated inputs without a 5xx (${perRoute} cases per route)`, async () => {
    const all = [...routes, { method: 'GET', path: '/healthz', tag: 'health', auth: 'none', server: 'content', responses: {} } as unknown as Route];
    expect(all.length).to.be.greaterThan(20);
    for (const route of all) {
      const name = `${route.method} ${route.server === 'content' ? '{cdn}' : ''}${route.path}`;
      // A live file of our own for every route (DELETE routes remove it now and then).
      fileId = (await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: makePng() })).body.file.file_id;
      const stats = { cases: 0, statuses: new Map<number, number>() };
      tally.set(name, stats);
      const base = route.server === 'content' ? server.content : server.api;
      const bodySchema = route.body && route.body !== 'binary' ? (route.body as Json) : undefined;
      const caseOf = fc.record({
        params: inputOf(route.params as Json | undefined),
        query: inputOf(route.query as Json | undefined),
        headers: inputOf(route.headers as Json | undefined),
        body: bodySchema ? inputOf(bodySchema) : fc.constant(undefined),
        rawBody: fc.oneof(fc.constant(undefined), fc.constantFrom('{', '{"a":', 'null', '[]', '"x"', '\u0000', '{"__proto__":{"admin":true}}')),
        credential: fc.constantFrom(...CREDENTIALS),
        ownFile: fc.boolean(),
        upload: fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constant(makePng()), fc.constant(randomFileOf(200, 'video/mp4'))),
      });
      await fc.assert(
        fc.asyncProperty(caseOf, async (c) => {
          let path = route.path;
          const params = asStrings(c.params);
          for (const key of [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1])) {
            const value = c.ownFile && key === 'id' ? fileId : (params[key] ?? 'x');
            path = path.replace(`:${key}`, percentEncode(value) || 'x');
          }
          const query = new URLSearchParams(asStrings(c.query)).toString();
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(asStrings(c.headers))) {
            // Header values cannot hold control characters: fetch refuses them before sending.
            if (/^[\t\x20-\x7e\x80-\xff]*$/.test(v)) headers[k] = v;
          }
          // The logout route would end the session every other case uses: it gets an API key or junk instead.
          const credential = route.path === '/auth/logout' && c.credential === 'jwt' ? 'garbage' : c.credential;
          const init: Parameters<typeof call>[2] = { method: route.method, headers };
          if (credential === 'api_key') init.apiKey = apiKey;
          if (credential === 'jwt') init.token = accessToken;
          if (credential === 'garbage') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.e30.';
          if (route.body === 'binary') init.body = c.upload;
          else if (bodySchema && c.rawBody !== undefined) {
            headers['content-type'] = 'application/json';
            init.body = c.rawBody;
          } else if (bodySchema && c.body !== undefined) init.json = c.body;
          const result = await call(base, `${path}${query ? `?${query}` : ''}`, init);
          stats.cases++;
          stats.statuses.set(result.status, (stats.statuses.get(result.status) ?? 0) + 1);
          // 502 EDGE_PROVIDER_ERROR is the mock edge provider's deliberate failure for `edge-error.*` hostnames.
          // 501 FORMAT_NOT_IMPLEMENTED is oEmbed's own answer to a format other than json (oEmbed 1.0 §2.3.4).
          const deliberate =
            (route.path === '/settings' && result.status === 502 && result.body.code === 'EDGE_PROVIDER_ERROR') ||
            (route.path === '/oembed' && result.status === 501 && result.body.code === 'FORMAT_NOT_IMPLEMENTED');
          if (!deliberate) expect(result.status, `${name} ${JSON.stringify(c).slice(0, 300)}`).to.be.lessThan(500);
          if (result.status >= 400 && result.headers.get('content-type')?.startsWith('application/json')) {
            expect(result.body.code).to.match(/^[A-Z][A-Z0-9_]+$/);
            expect(result.body.message).to.be.a('string').and.not.equal('');
          }
        }),
        { numRuns: perRoute, seed: FC_SEED, endOnFailure: true },
      );
    }
    for (const family of families) expect([...tally.keys()].length).to.be.greaterThan(0, family);
  });
});
