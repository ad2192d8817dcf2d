import type { TSchema } from '@sinclair/typebox';
import { ErrorBody as ERROR_SCHEMA } from './error-body.js';
import { type Alternatives, ROUTE_TAGS, type Route } from './route.js';

/** An OpenAPI 3.0.3 document (kept loose: it is built here and validated by tests with a real validator). */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

/** What the document says about the service besides its routes. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** {base_url}. */
  apiUrl: string;
  /** {cdn_url}: server of the routes marked `server: 'content'`. */
  contentUrl: string;
  /** The licence of the interface (OpenAPI Info `license`): SPDX identifier or name, and where to read it. */
  license: { name: string; url?: string };
}

/**
 * A schema keyword the validators ignore and the OpenAPI document honours: the schema to publish
 * instead of the one that validates. For a value the edge takes as text so the core can refuse it
 * with its own code (the image parameters: `w=abc` is 400 INVALID_TRANSFORM, not VALIDATION_FAILED),
 * while clients should be told its real type and range.
 */
export const DOCUMENTED_AS = 'documentedAs';

type Json = Record<string, unknown>;

/**
 * OpenAPI 3.0 has no null type: a value that is always null is a nullable string limited to null
 * (a string rather than an object: openapi-typescript 6 fails on an object with an `enum`).
 */
const NULL_ONLY = { type: 'string', nullable: true, enum: [null] };

/**
 * Converts a TypeBox (JSON Schema) schema into an OpenAPI 3.0 Schema Object: `null` unions become
 * `nullable: true`, `const` becomes a one-value `enum`, `patternProperties` (records) become
 * `additionalProperties`, and schemas with an `$id` become `$ref`s to `components.schemas`
 * (collected into `components`).
 */
export function toOpenApiSchema(schema: TSchema | Json, components: Json, top = true): Json {
  const source = schema as Json;
  if (source[DOCUMENTED_AS]) {
    const kept = Object.fromEntries(Object.entries(source).filter(([key]) => ![DOCUMENTED_AS, 'anyOf', 'type', 'items'].includes(key)));
    return toOpenApiSchema({ ...kept, ...(source[DOCUMENTED_AS] as Json) }, components, top);
  }
  const id = source.$id as string | undefined;
  if (id && !top) {
    if (!(id in components)) components[id] = {}; // placeholder first: guards against cycles
    components[id] = toOpenApiSchema(schema, components, true);
    return { $ref: `#/components/schemas/${id}` };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === '$id' || key === 'const' || key === 'patternProperties' || key === 'anyOf' || key === 'examples') continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, child]) => [name, toOpenApiSchema(child as Json, components, false)]));
    } else if (key === 'items') {
      out.items = toOpenApiSchema(value as Json, components, false);
    } else if (key === 'additionalProperties' && typeof value === 'object') {
      out.additionalProperties = toOpenApiSchema(value as Json, components, false);
    } else {
      out[key] = value;
    }
  }
  if ('const' in source) {
    out.enum = [source.const];
    if (source.type === undefined) out.type = typeof source.const === 'number' ? 'number' : typeof source.const;
  }
  if (source.patternProperties) {
    const [value] = Object.values(source.patternProperties as Json);
    out.type = 'object';
    out.additionalProperties = toOpenApiSchema(value as Json, components, false);
  }
  if (Array.isArray(source.examples) && source.examples.length > 0) out.example = source.examples[0];
  if (source.anyOf) {
    const options = source.anyOf as Json[];
    const nonNull = options.filter((o) => o.type !== 'null');
    const nullable = nonNull.length < options.length;
    const allLiterals = nonNull.length > 0 && nonNull.every((o) => 'const' in o && typeof o.const === typeof nonNull[0].const);
    if (allLiterals) {
      out.type = typeof nonNull[0].const === 'number' ? 'number' : typeof nonNull[0].const;
      out.enum = nonNull.map((o) => o.const);
    } else if (nonNull.length === 1) {
      Object.assign(out, toOpenApiSchema(nonNull[0], components, false));
    } else {
      out.anyOf = nonNull.map((o) => toOpenApiSchema(o, components, false));
    }
    if (nullable) {
      // OpenAPI 3.0 cannot make a $ref nullable: offer the reference or an explicit null.
      if (out.$ref) return { anyOf: [{ $ref: out.$ref }, NULL_ONLY] };
      out.nullable = true;
    }
  }
  if (source.type === 'null') return { ...NULL_ONLY };
  if (out.$ref && Object.keys(out).length > 1) return { allOf: [{ $ref: out.$ref }], ...Object.fromEntries(Object.entries(out).filter(([k]) => k !== '$ref')) };
  return out;
}

const SECURITY_SCHEMES = {
  bearerJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Session token (`access_token` from POST /auth/login), as `Authorization: Bearer <JWT>`.',
  },
  bearerApiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'hgr_ API key', description: 'API key as `Authorization: Bearer hgr_…`.' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'API key in the `X-Api-Key` header.' },
};

/** The route's security requirements; an API key's lists the scopes it must hold (OpenAPI 3.1 §4.8.30 allows roles for any scheme). */
function securityOf(route: Route): Json[] {
  if (route.auth === 'none') return [];
  if (route.auth === 'jwt') return [{ bearerJwt: [] }];
  const scopes = [...route.auth.scopes];
  return [{ bearerJwt: [] }, { bearerApiKey: scopes }, { apiKeyHeader: scopes }];
}

function parametersOf(where: 'path' | 'query' | 'header', schema: TSchema | undefined, components: Json): Json[] {
  if (!schema) return [];
  const properties = (schema as Json).properties as Record<string, Json>;
  const required = new Set(((schema as Json).required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, child]) => {
    const converted = toOpenApiSchema(child, components, false);
    const description = converted.description;
    delete converted.description;
    return {
      name,
      in: where,
      // A parameter with a default is optional for the client, whatever the validating schema says
      // (TypeBox lists it as required because the edge fills the default in before validating).
      required: where === 'path' || (required.has(name) && !('default' in child)),
      ...(description ? { description } : {}),
      schema: converted,
    };
  });
}

/**
 * Headers documented on every response of a kind, whatever the route (RFC 9110): `Location` of a
 * 302 (§10.2.2), `Retry-After` of a 429 (RFC 6585 §4; set from the refusal's wait), the strong
 * `ETag` of a file's bytes and of a 304 (§8.8.3, §15.4.5), `Content-Range` of a 206 (§14.4).
 */
function implicitHeaders(status: number, schema: unknown): Record<string, string> {
  const binary = schema !== null && typeof schema === 'object' && (schema as Json).format === 'binary';
  if (status === 302) return { Location: 'Where the browser goes next.' };
  if (status === 429) return { 'Retry-After': 'Whole seconds to wait before trying again.' };
  if (status === 304) return { ETag: 'The strong validator of the bytes the client holds.' };
  if (binary && status === 200) return { ETag: 'Strong validator of the bytes (their SHA-256, quoted), for If-None-Match and If-Range.' };
  if (binary && status === 206)
    return { ETag: 'Strong validator of the whole file’s bytes.', 'Content-Range': 'The part sent: `bytes <first>-<last>/<size>`.' };
  return {};
}

/** OpenAPI `headers` of a response: name → `{ description, schema: string }`, or nothing when there are none. */
function headersOf(headers: Record<string, string>): Json {
  const entries = Object.entries(headers);
  if (entries.length === 0) return {};
  return { headers: Object.fromEntries(entries.map(([name, description]) => [name, { description, schema: { type: 'string' } }])) };
}

function responseOf(status: number, schema: TSchema | null | { html: true } | Alternatives, components: Json, headers: Record<string, string> = {}): Json {
  return { ...responseBodyOf(status, schema, components), ...headersOf({ ...implicitHeaders(status, schema), ...headers }) };
}

function responseBodyOf(status: number, schema: TSchema | null | { html: true } | Alternatives, components: Json): Json {
  const description = STATUS_TEXT[status] ?? `HTTP ${status}`;
  if (schema === null) return { description };
  if ('alternatives' in (schema as Json)) {
    const alternatives = (schema as Alternatives).alternatives;
    return {
      description,
      content: Object.fromEntries(Object.entries(alternatives).map(([type, s]) => [type, { schema: toOpenApiSchema(s, components, false) }])),
    };
  }
  if ('html' in (schema as Json) && (schema as Json).html === true) return { description, content: { 'text/html': { schema: { type: 'string' } } } };
  if ((schema as Json).format === 'binary') return { description, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } };
  return { description, content: { 'application/json': { schema: toOpenApiSchema(schema as TSchema, components, false) } } };
}

/**
 * Error responses every route of a kind can give, added to its declared ones: 400 for any input
 * to validate, 413/415 for JSON bodies, 401 and 403 behind authentication (JWT_REQUIRED,
 * INSUFFICIENT_SCOPE), 429 behind authentication too (unknown API keys are throttled), 503 everywhere (an outage of the database or blob store). (500 is deliberately absent: it is a bug, never part of the interface.)
 */
function implicitResponses(route: Route): Record<number, TSchema> {
  const implicit: Record<number, TSchema> = {};
  const error = ERROR_SCHEMA;
  if (route.params || route.query || route.headers || route.body) implicit[400] = error;
  if (route.body && route.body !== 'binary') Object.assign(implicit, { 413: error, 415: error });
  if (route.auth !== 'none') implicit[401] = error;
  // JWT_REQUIRED, or INSUFFICIENT_SCOPE for a key without the route's scopes.
  if (route.auth !== 'none') implicit[403] = error;
  // Unknown API keys from the client are throttled like failed logins (RATE_LIMITED), wherever a credential is read.
  if (route.auth !== 'none') implicit[429] = error;
  // Any route may meet an outage of the database or blob store: DATABASE_UNAVAILABLE, BLOB_STORE_UNAVAILABLE.
  implicit[503] = error;
  return implicit;
}

/**
 * Every request, whatever its route, can be refused by the HTTP parser before it is routed: a
 * malformed request line or header (400), a request that is not received in time (408), header
 * fields that are too large (431). Declared as the `4XX` range on the operations that declare no
 * client error of their own, so each operation lists the client errors it can meet.
 */
const PARSER_REFUSALS = {
  description: 'The request was refused before routing: malformed request line or headers (400), not received in time (408), header fields too large (431).',
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  206: 'Partial Content',
  302: 'Found (redirect)',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

/**
 * Builds the OpenAPI 3.0.3 document of a route table: the one source of routing, validation and
 * documentation. Paths `/files/:id` become `/files/{id}`; routes served by the content server carry
 * their own `servers` entry.
 */
export function buildOpenApiDocument(routes: readonly Route[], info: OpenApiInfo): OpenApiDocument {
  const components: Json = {};

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const operation: Json = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      security: securityOf(route),
      parameters: [
        ...parametersOf('path', route.params, components),
        ...parametersOf('query', route.query, components),
        ...parametersOf('header', route.headers, components),
      ],
      responses: Object.fromEntries(
        Object.entries({ ...implicitResponses(route), ...route.responses }).map(([status, schema]) => [
          status,
          responseOf(Number(status), schema, components, route.responseHeaders?.[Number(status)]),
        ]),
      ),
    };
    if (route.body === 'binary') {
      operation.requestBody = {
        required: true,
        description: 'The file’s bytes, as they are (not multipart). `Content-Type` must be one of GET /reference/allowed-content-types.',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } }, '*/*': { schema: { type: 'string', format: 'binary' } } },
      };
    } else if (route.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: toOpenApiSchema(route.body, components, false) } } };
    }
    if (route.callback) {
      const { name, expression, body, description } = route.callback;
      operation.callbacks = {
        [name]: {
          [expression]: {
            post: {
              summary: `${route.summary}: the requests the service sends`,
              description,
              // The receiver authenticates the request by its signature, not by a credential.
              security: [],
              requestBody: { required: true, content: { 'application/json': { schema: toOpenApiSchema(body, components, false) } } },
              responses: {
                '2XX': { description: 'Received: any 2xx answer ends the delivery.' },
                '4XX': { description: 'Refused: retried later, like any answer that is not 2xx (e.g. a signature the receiver could not verify).' },
              },
            },
          },
        },
      };
    }
    if ((operation.parameters as Json[]).length === 0) delete operation.parameters;
    const responses = operation.responses as Json;
    if (!Object.keys(responses).some((status) => status.startsWith('4'))) responses['4XX'] = PARSER_REFUSALS;
    const item = (paths[path] ??= {});
    if (route.server === 'content') item.servers = [{ url: info.contentUrl, description: 'Content server ({cdn_url})' }];
    item[route.method.toLowerCase()] = operation;
    if (route.alsoHead) item.head = { ...operation, operationId: `${route.operationId}Head`, summary: `${route.summary} (headers only)` };
  }
  return {
    openapi: '3.0.3',
    info: { title: info.title, version: info.version, description: info.description, license: info.license },
    servers: [{ url: info.apiUrl, description: 'API ({base_url})' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: ROUTE_TAGS[name] })),
    paths,
    components: { schemas: components, securitySchemes: SECURITY_SCHEMES },
  } as OpenApiDocument;
}
