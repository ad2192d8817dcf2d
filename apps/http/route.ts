import Router from '@koa/router';
import { type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { readPacedText } from './upload-pacing.js';
import type { Context } from 'koa';
import { requireSession } from '../../core/accounts/authenticate.js';
import type { Principal } from '../../core/accounts/principal.js';
import type { ApiKeyScope } from '../../core/api-keys/api-key-scopes.js';
import { authorize } from '../../core/api-keys/authorize.js';
import { DomainError, type ErrorCode } from '../../core/shared/errors.js';
import type { Hangar } from '../../core/hangar.js';
import type { AdminActor } from '../../core/admin/admin-audit.js';

/**
 * Who may call a route: nobody in particular (`none`), a session token only (`jwt`, spec 5.6), or
 * a session token or an API key holding every scope listed (`{ scopes }`; docs/api-keys.md); with
 * `admin: true`, the caller's account must moreover be an active administrator (docs/admin.md; see
 * {@link ADMIN_AUTH}). This field of the route table is the one map of routes to the scopes they need.
 */
export type RouteAuth = 'none' | 'jwt' | { scopes: readonly ApiKeyScope[]; admin?: true };

/** The auth of the `/admin` routes: an administrator's session token, or an administrator's key with the `admin` scope. */
export const ADMIN_AUTH = { scopes: ['admin'], admin: true } as const satisfies RouteAuth;

/** What a handler receives: validated input and the caller. */
export interface RouteInput<P, Q, B> {
  ctx: Context;
  params: P;
  query: Q;
  body: B;
  /** Set when the route's auth is not `none`. */
  principal: Principal;
  /** The administrator acting, for the audit log; set when the route's auth is {@link ADMIN_AUTH}. */
  admin: AdminActor;
}

/**
 * A route is data: method, path, operation id, tag, auth, TypeBox schemas for params, query, JSON
 * body and each response status. Validators are compiled from this table once, on each route's first request; the
 * OpenAPI document (apps/http/openapi.ts) is generated from the same table.
 */
export interface Route<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  /** @koa/router path, e.g. `/files/:id`. */
  path: string;
  operationId: string;
  /** The group it is listed under in the reference; each group is described in {@link ROUTE_TAGS}. */
  tag: RouteTag;
  summary: string;
  /** Longer text for the reference (Markdown). */
  description?: string;
  /** The error codes the route may answer (besides UNAUTHORIZED, VALIDATION_FAILED and outages), listed in /reference/for-agents. */
  errorCodes?: readonly ErrorCode[];
  auth: RouteAuth;
  /** Which server answers it: the API ({base_url}, default) or the content server ({cdn_url}). */
  server?: 'api' | 'content';
  /** A GET that also answers HEAD with the same headers (documented as its own operation). */
  alsoHead?: boolean;
  params?: P;
  query?: Q;
  /** Request headers, with lower-case names (credentials are described by the security schemes instead). */
  headers?: TSchema;
  /** JSON body schema; `binary` for a raw body the handler streams itself. */
  body?: B | 'binary';
  /**
   * Response schemas by status: a JSON schema, {@link BINARY} for raw bytes, {@link HTML} for a
   * page, or null for no body. The OpenAPI document and the HTTP tests' response checks come from here.
   */
  responses: Record<number, TSchema | null | typeof HTML | Alternatives>;
  /**
   * Requests the service later sends on its own because of this operation (OpenAPI 3.0 `callbacks`,
   * e.g. webhook events POSTed to the URL the body names): a runtime expression, the JSON body sent,
   * and what the receiver should answer.
   */
  callback?: { name: string; expression: string; body: TSchema; description: string };
  /**
   * Response headers that carry the answer, by status: header name → what it holds (OpenAPI
   * `headers`), e.g. `{ 201: { Location: 'The upload’s URL' } }`. Documented without listing them:
   * `Location` on a 302, `Retry-After` on a 429, `ETag` on a file's bytes (200, 206) and on 304
   * (see apps/http/openapi.ts).
   */
  responseHeaders?: Record<number, Record<string, string>>;
  handler: (input: RouteInput<Static<P>, Static<Q>, Static<B>>) => Promise<void>;
}

/**
 * The groups of operations in the reference (OpenAPI `tags`), each with its description. A route
 * names one; a new group needs its description here (the reference tests lint the document).
 */
export const ROUTE_TAGS = {
  auth: 'Registration, e-mail confirmation, login, sessions and password reset. No credentials needed except to log out.',
  'api-keys':
    'API keys for scripts and tools: created, listed and revoked with a session token only; a key is shown once. A key holds scopes (files:read, files:write, files:delete, account:read, webhooks:manage; all by default) and may expire.',
  files: 'Upload (the raw bytes as the body), list with filters, get and delete files. API key or session token.',
  webhooks:
    'Webhook endpoints: Hangar POSTs signed events (Standard Webhooks) when files, shares or the custom domain change. Session token, or an API key with `webhooks:manage`.',
  settings: 'Account settings: the largest upload and the custom domain for public addresses.',
  account: 'The account as a whole: profile and plan, usage in the billing period, and the activity log.',
  admin:
    "The operator console (docs/admin.md): accounts, audit log. An administrator's session token, or an administrator's API key with the `admin` scope. Counts only: no route here returns a file's name, bytes or thumbnail.",
  reference: 'This document, the agent guide, allowed content types, the browsable docs and the health check. No credentials.',
  content: 'The public addresses of files on the content server ({cdn_url}): view (with image transformations) and download.',
} as const;
/** A key of {@link ROUTE_TAGS}. */
export type RouteTag = keyof typeof ROUTE_TAGS;

/** Marks a response that is a small HTML page. */
export const HTML = { html: true } as const;
/** A response offered in several media types (by `Accept`): media type → schema. */
export interface Alternatives {
  alternatives: Record<string, TSchema>;
}
/** Marks a response whose body is the raw bytes of a file. */
export const BINARY = { type: 'string', format: 'binary' } as unknown as TSchema;

/** Declares a route with its handler typed from its schemas. */
export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema>(route: Route<P, Q, B>): Route {
  return route as unknown as Route;
}

/** Largest JSON request body, in bytes, counted after any content coding is undone; more is 413 PAYLOAD_TOO_LARGE. */
export const JSON_LIMIT_BYTES = 64 * 1024;

/** What @koa/router's `routes()` is: Koa middleware over a context that holds the route's `params`. */
export type RouteMiddleware = ReturnType<Router['routes']>;

/** A route table as Koa middleware (see {@link buildRoutes}). */
export interface RouteTable {
  /** Runs the route that matches the request, as @koa/router's `routes()`; a request no route matches goes on (`next`) with `ctx.matched` empty or unset. */
  middleware: RouteMiddleware;
  /** Every method some route of the table serves (upper case), for allowedMethodsMiddleware. */
  methods: ReadonlySet<string>;
}

/**
 * Builds the route table's middleware: per route, compiled validators (params, query with
 * string-to-number/boolean conversion, JSON body), authentication, then the handler.
 *
 * Routes are registered on one @koa/router per first segment of their path (`files` for
 * `/files/:id`), and a request is matched against the routes of its own path's first segment
 * alone: @koa/router tests every route's expression in turn and builds the chain of each match,
 * which over all of the API's routes cost several times what one group costs (decision 0014,
 * docs/decisions/). Its expressions match case-insensitively without Unicode
 * folding (flag `i`, no `u`), so an ASCII segment lower-cased names the one group whose routes can
 * match it; the group's router then decides exactly as one router over all the routes would
 * (`ctx.matched`, `ctx.params`, 404 when none matches). A table with a route whose first segment is
 * not literal (a parameter or pattern) is one router.
 * @throws DomainError VALIDATION_FAILED (400), UNSUPPORTED_MEDIA_TYPE (415), UNAUTHORIZED / API_KEY_EXPIRED (401),
 *   JWT_REQUIRED / INSUFFICIENT_SCOPE / ADMIN_REQUIRED / ACCOUNT_SUSPENDED (403), RATE_LIMITED (429: unknown API keys from the client)
 */
export function buildRoutes(routes: readonly Route[], hangar: Pick<Hangar, 'authenticate' | 'authorizeAdmin'>): RouteTable {
  const grouped = routes.every((route) => firstSegmentOf(route.path) !== undefined);
  const routers = new Map<string, Router>();
  const routerFor = (path: string): Router => {
    const key = grouped ? firstSegmentOf(path)! : '';
    let router = routers.get(key);
    if (!router) routers.set(key, (router = new Router()));
    return router;
  };
  for (const route of routes) {
    const router = routerFor(route.path);
    // Compiled on the route's first request, not here: a worker starts without compiling the
    // validators of every route, most of which it may never serve.
    const check = {
      params: route.params && compileOnUse(route.params),
      headers: route.headers && compileOnUse(route.headers),
      query: route.query && compileOnUse(route.query),
      body: route.body && route.body !== 'binary' ? compileOnUse(route.body) : undefined,
    };
    router.register(route.path, [route.method], async (ctx: Context) => {
      // The template, for the access log and metrics (never the path's values).
      ctx.state.route = route.path;
      const principal = await authenticate(ctx, route.auth, hangar);
      const admin = typeof route.auth === 'object' && route.auth.admin ? await hangar.authorizeAdmin.execute({ principal, client: clientOf(ctx) }) : undefined;
      // Copied (and the query string parsed) only for the parts a route declares.
      const params = check.params ? validate('path', route.params, check.params(), { ...ctx.params }) : { ...ctx.params };
      const query = check.query ? validate('query', route.query, check.query(), { ...ctx.query }) : undefined;
      if (check.headers) validate('header', route.headers, check.headers(), { ...ctx.headers });
      let body: unknown;
      if (check.body) {
        // No body at all (no Content-Length and not chunked, or `Content-Length: 0`) is missing input, not a wrong media type.
        if (ctx.is('application/json') === null || ctx.get('Content-Length').trim() === '0') {
          throw new DomainError('VALIDATION_FAILED', 'A JSON body is required.', [{ in: 'body', path: '/', message: 'Expected a JSON body' }]);
        }
        if (!ctx.is('application/json')) {
          throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
        }
        body = validate('body', route.body as TSchema, check.body(), await readJson(ctx), false);
      }
      await route.handler({ ctx, params, query, body, principal, admin } as RouteInput<unknown, unknown, unknown>);
    });
  }
  const methods = new Set(routes.map((route) => route.method));
  if (!grouped) return { middleware: routerFor('').routes(), methods };
  const groups = new Map([...routers].map(([segment, router]) => [segment, router.routes()]));
  const middleware = ((ctx, next) => {
    const group = groups.get(leadingSegment(ctx.path).toLowerCase());
    return group ? group(ctx, next) : next();
  }) as RouteMiddleware;
  return { methods, middleware };
}

/** The first segment of a route's path, lower-cased (`files` for `/files/:id`, `` for `/`), or undefined when it is not literal text. */
function firstSegmentOf(path: string): string | undefined {
  const segment = leadingSegment(path);
  return path.startsWith('/') && /^[A-Za-z0-9._~-]*$/.test(segment) ? segment.toLowerCase() : undefined;
}

/** The text of `path` between its first character (the leading `/`) and the next `/` or its end, as it is. */
function leadingSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/** A body that strict JSON parsing takes: an object or an array, after optional white space (RFC 8259 §2). */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/**
 * Reads a JSON body of at most JSON_LIMIT_BYTES, under the pacing rules of every body
 * (readPacedText: idle timeout, minimum rate, slow bodies per client). An empty body reads as `{}`;
 * any other body must be an object or an array.
 * @throws DomainError VALIDATION_FAILED (malformed JSON, or a scalar), PAYLOAD_TOO_LARGE (413),
 *   UNSUPPORTED_MEDIA_TYPE (415, a content coding other than gzip, deflate, br), REQUEST_TIMEOUT (408), TOO_MANY_SLOW_BODIES (429)
 */
async function readJson(ctx: Context): Promise<unknown> {
  const text = await readPacedText(ctx, JSON_LIMIT_BYTES, 'The JSON body');
  if (text === '') return {};
  try {
    if (OBJECT_OR_ARRAY.test(text)) return JSON.parse(text);
  } catch {
    // Malformed: the same answer as a scalar.
  }
  throw new DomainError('VALIDATION_FAILED', 'The request body is not valid JSON.');
}

/**
 * A schema's compiled validator, with what its string input (query, path, headers) needs before the
 * check: `convert`, whether Value.Convert can change such input (see {@link keepsText}); `defaults`,
 * whether the schema declares any default for Value.Default to fill in. Both are answered once, so
 * that a route whose parts are all text with no defaults (the content server's `/m/:id`) pays for
 * the check alone.
 */
interface Compiled {
  check: ReturnType<typeof TypeCompiler.Compile>;
  convert: boolean;
  defaults: boolean;
}

/** The validator of `schema`, compiled by the first call and kept for every later one. */
function compileOnUse(schema: TSchema): () => Compiled {
  let compiled: Compiled | undefined;
  return () =>
    (compiled ??= {
      check: TypeCompiler.Compile(schema),
      convert: !keepsStringInput(schema),
      defaults: declaresDefault(schema),
    });
}

/**
 * True when Value.Convert returns every query, path or header input of the object schema `schema`
 * as it is (each declared property {@link keepsText}; Value.Convert touches no other property), so
 * validating such input needs no conversion.
 */
export function keepsStringInput(schema: TSchema): boolean {
  return (
    schema.type === 'object' && schema.patternProperties === undefined && Object.values((schema.properties ?? {}) as Record<string, TSchema>).every(keepsText)
  );
}

/**
 * True when Value.Convert returns a property's string input unchanged: a string schema, or a
 * union of strings and lists of strings with a string among them (a string input matches that
 * member and is kept; a list of strings matches the list member). Query, path and header values
 * are always strings or lists of strings; a list schema alone is not such a property, since
 * Value.Convert wraps a single string into a list.
 */
function keepsText(schema: TSchema): boolean {
  if (schema.type === 'string') return true;
  const members = schema.anyOf as TSchema[] | undefined;
  if (!Array.isArray(members)) return false;
  return (
    members.some((m) => m.type === 'string') &&
    members.every((m) => m.type === 'string' || (m.type === 'array' && (m.items as TSchema | undefined)?.type === 'string'))
  );
}

/** True for an object with no own enumerable property (`{}`, as a request without a query string parses). */
function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const _key in value) return false;
  return true;
}

/** Whether `schema` or any schema inside it has a `default`. */
function declaresDefault(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if (Array.isArray(schema)) return schema.some(declaresDefault);
  if (Object.hasOwn(schema, 'default')) return true;
  return Object.values(schema).some(declaresDefault);
}

function validate(where: string, schema: TSchema | undefined, compiled: Compiled | undefined, value: unknown, convert = true): unknown {
  if (!schema || !compiled) return value;
  // Query and path values arrive as strings: convert them to the schema's types, then fill defaults.
  let input = value;
  // An empty object (no query string) is one that Value.Convert returns as it is, whatever the schema.
  if (convert && compiled.convert && !isEmptyObject(input)) input = convertStrings(schema, input);
  if (convert && compiled.defaults) input = Value.Default(schema, input);
  if (compiled.check.Check(input)) return input;
  const details = [...compiled.check.Errors(input)].slice(0, 10).map((e) => ({ in: where, path: e.path || '/', message: e.message }));
  const first = details[0];
  throw new DomainError('VALIDATION_FAILED', `Invalid ${where}${first ? ` at ${first.path}: ${first.message}` : ''}.`, details);
}

/**
 * Query or path strings converted to the schema's types (TypeBox's `Value.Convert`), except that an
 * integer is taken only from a plain decimal integer string: `Value.Convert` parses integers like
 * `parseInt`, so `sizeMin=1.5e6` would silently become 1 and `page=1e300` page 1. Anything else
 * stays a string, which the schema then refuses (400 VALIDATION_FAILED).
 */
function convertStrings(schema: TSchema, value: unknown): unknown {
  // Value.Convert may convert the object it is given in place: keep the raw strings first.
  const raw = typeof value === 'object' && value !== null ? Object.entries(value as Record<string, unknown>) : [];
  const converted = Value.Convert(schema, value);
  if (typeof converted !== 'object' || converted === null) return converted;
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  for (const [key, text] of raw) {
    if (properties[key]?.type === 'integer' && typeof text === 'string' && !/^[+-]?\d+$/.test(text)) (converted as Record<string, unknown>)[key] = text;
  }
  return converted;
}

/** The client's address as client-address.ts set it, or undefined. */
function clientOf(ctx: Context): string | undefined {
  return typeof ctx.state.client === 'string' && ctx.state.client !== '' ? ctx.state.client : undefined;
}

async function authenticate(ctx: Context, auth: RouteAuth, hangar: Pick<Hangar, 'authenticate'>): Promise<Principal> {
  if (auth === 'none') return undefined as unknown as Principal;
  const apiKey = ctx.get('X-Api-Key');
  const principal = await hangar.authenticate.execute({
    authorization: ctx.get('Authorization') || undefined,
    apiKey: apiKey === '' ? undefined : apiKey,
    client: typeof ctx.state.client === 'string' && ctx.state.client !== '' ? ctx.state.client : undefined,
  });
  ctx.state.principal = principal;
  if (auth === 'jwt') return requireSession(principal);
  authorize(principal, auth.scopes);
  return principal;
}
