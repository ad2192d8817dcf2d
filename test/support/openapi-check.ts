import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AssertionError } from 'chai';

// Every response a test receives is checked against the OpenAPI document the service publishes:
// the status must be declared for the operation, and a JSON body must match the declared schema.

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Operation {
  method: string;
  pattern: RegExp;
  pointer: string;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

interface Checker {
  ajv: Ajv;
  operations: Operation[];
}

const checkers = new Map<string, Checker>();
const documents = new Map<string, Promise<Checker>>();
/**
 * Checkers by the document's JSON text: the servers of a test file mostly publish the same
 * document, and compiling it with ajv (its references resolved, each operation's schema compiled
 * as responses come) costs more CPU than starting an in-process server; one checker serves them all.
 */
const checkersByText = new Map<string, Checker>();

function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

async function load(apiBase: string): Promise<Checker> {
  const response = await fetch(`${apiBase}/reference/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /reference/openapi.json answered ${response.status}`);
  const text = await response.text();
  let checker = checkersByText.get(text);
  if (!checker) {
    checker = compile(JSON.parse(text) as { paths: Record<string, Record<string, any>> });
    checkersByText.set(text, checker);
  }
  return checker;
}

function compile(document: { paths: Record<string, Record<string, any>> }): Checker {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(document, 'openapi');
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'head', 'post', 'patch', 'delete', 'put', 'options'].includes(method)) continue;
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      operations.push({ method, pattern, pointer: `openapi#/paths/${escapePointer(path)}/${method}`, responses: operation.responses });
    }
  }
  return { ajv, operations };
}

/** Registers a running service's API and content addresses; its document is fetched once. */
export async function registerService(apiBase: string, contentBase: string): Promise<void> {
  let loading = documents.get(apiBase);
  if (!loading) {
    loading = load(apiBase);
    documents.set(apiBase, loading);
  }
  const checker = await loading;
  checkers.set(apiBase, checker);
  checkers.set(contentBase, checker);
}

/** Forgets a stopped service. */
export function unregisterService(...bases: string[]): void {
  for (const base of bases) {
    checkers.delete(base);
    documents.delete(base);
  }
}

/**
 * Fails (AssertionError) when the response is not what the document declares for the operation:
 * an undocumented path, method or status, a JSON body that does not match its schema, or a body
 * where none is declared. Responses of unregistered addresses are not checked.
 */
export function checkResponse(base: string, method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const checker = checkers.get(base);
  if (!checker) return;
  const path = new URL(url, base).pathname;
  const operation = checker.operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(path));
  if (!operation) {
    // Unknown routes must still answer the documented error shape.
    if (status === 404 || status === 405) return checkError(checker, status, body, `${method} ${path}`);
    throw new AssertionError(`OpenAPI: ${method} ${path} is not documented`);
  }
  const declared = operation.responses[String(status)];
  if (!declared) {
    throw new AssertionError(`OpenAPI: ${method} ${path} answered ${status}, which is not declared (declared: ${Object.keys(operation.responses).join(', ')})`);
  }
  const types = Object.keys(declared.content ?? {});
  if (types.length > 0 && method.toUpperCase() !== 'HEAD' && !types.includes('*/*') && !types.some((t) => contentType?.startsWith(t))) {
    throw new AssertionError(`OpenAPI: ${method} ${path} ${status} should be ${types.join(' or ')}, was ${contentType}`);
  }
  const json = declared.content?.['application/json'];
  if (json && contentType?.startsWith('application/json')) {
    const validate = checker.ajv.getSchema(`${operation.pointer}/responses/${status}/content/application~1json/schema`);
    if (!validate) throw new Error(`no schema for ${method} ${path} ${status}`);
    if (!validate(body)) {
      throw new AssertionError(
        `OpenAPI: ${method} ${path} ${status} body does not match the document: ${checker.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  } else if (!declared.content && body !== undefined && body !== '') {
    throw new AssertionError(`OpenAPI: ${method} ${path} ${status} declares no body but sent ${JSON.stringify(body).slice(0, 200)}`);
  }
}

function checkError(checker: Checker, status: number, body: unknown, what: string): void {
  const validate = checker.ajv.getSchema('openapi#/components/schemas/Error');
  if (!validate || !validate(body)) throw new AssertionError(`OpenAPI: ${what} ${status} is not an Error body: ${JSON.stringify(body)}`);
}
