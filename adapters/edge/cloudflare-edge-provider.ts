import Cloudflare, { APIConnectionError, APIError } from 'cloudflare';
import type { DnsRecord } from '../../core/domains/custom-domain.js';
import type { EdgeHostname, EdgeProvider } from '../../core/domains/edge-provider.js';
import { DomainError } from '../../core/shared/errors.js';

/** Cloudflare's v4 API base, the default of {@link CloudflareEdgeProviderOptions.baseUrl}. */
export const CLOUDFLARE_API_BASE_URL = 'https://api.cloudflare.com/client/v4';

/** Options of {@link CloudflareEdgeProvider}. */
export interface CloudflareEdgeProviderOptions {
  /** An API token with the zone's `SSL and Certificates: Edit` permission; sent as `Authorization: Bearer …`, never logged. */
  apiToken: string;
  /** The Cloudflare for SaaS zone that holds the custom hostnames. */
  zoneId: string;
  /** API base URL without a trailing path, e.g. a local fake in tests; default {@link CLOUDFLARE_API_BASE_URL}. */
  baseUrl?: string;
  /** What customers point their CNAME at: the zone's fallback origin (or a CNAME to it). */
  cnameTarget: string;
  /**
   * Domain control validation of the DV certificate: `txt` (default) asks the customer for an
   * `_acme-challenge` TXT record, so the certificate can be issued before traffic moves; `http`
   * lets Cloudflare validate over HTTP by itself once the CNAME is in place (no record to create).
   */
  sslMethod?: 'http' | 'txt';
  /** Longest one call may take, retries included, in ms (default 10 000). */
  timeoutMs?: number;
  /**
   * Retries of a read, PATCH or DELETE after a 5xx, 429 or connection failure (default 1), within
   * `timeoutMs`. A create is never retried: a POST that reached Cloudflare would come back as 1406.
   */
  retries?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 1;
/** Cloudflare: "Duplicate custom hostname found." (HTTP 409 on create). */
const DUPLICATE_HOSTNAME = 1406;
/** Cloudflare: "The custom hostname was not found." */
const HOSTNAME_NOT_FOUND = 1436;

/**
 * A custom hostname object as Cloudflare documents it
 * (https://developers.cloudflare.com/api/resources/custom_hostnames/): only the fields read here.
 * The client's create, get, edit and list results each have a type of their own of this shape.
 */
interface CloudflareCustomHostname {
  id: string;
  hostname: string;
  status?: string;
  ssl?: {
    status?: string;
    method?: string;
    validation_records?: Array<{ txt_name?: string; txt_value?: string; http_url?: string; http_body?: string; cname?: string; cname_target?: string }>;
    validation_errors?: Array<{ message?: string }>;
  };
  ownership_verification?: { type?: string; name?: string; value?: string };
  verification_errors?: string[];
}

/**
 * {@link EdgeProvider} over Cloudflare for SaaS custom hostnames (`POST/GET/PATCH/DELETE
 * /zones/{zone_id}/custom_hostnames[/{id}]`) with the official `cloudflare` client.
 *
 * - create: POST `{ hostname, ssl: { method, type: 'dv' } }`; Cloudflare's error 1406 (duplicate)
 *   is looked up with `GET …?hostname=` and answered `{ exists: true }`.
 * - refresh: PATCH with the same `ssl` object, which makes Cloudflare re-run validation.
 * - records: `ownership_verification` (TXT, purpose `ownership`) and each `ssl.validation_records`
 *   entry with `txt_name`/`txt_value` (TXT, `ssl_validation`) or `cname`/`cname_target` (CNAME,
 *   `ssl_validation`). HTTP validation entries (`http_url`/`http_body`) are not DNS records and
 *   not errors: Cloudflare serves them itself once the CNAME is in place, so they are left out.
 * - errors: `verification_errors`, then the messages of `ssl.validation_errors`.
 * - get answers undefined on 404 (or error 1436); delete of an unknown id succeeds.
 *
 * Every call ends within `timeoutMs`. Timeouts, connection failures, 5xx and any other refusal
 * (a bad token: 401/403) become DomainError EDGE_PROVIDER_ERROR (502) with Cloudflare's codes in
 * the message; the token is never part of a message.
 */
export class CloudflareEdgeProvider implements EdgeProvider {
  readonly cnameTarget: string;
  private readonly client: Cloudflare;
  private readonly zoneId: string;
  private readonly ssl: { method: 'http' | 'txt'; type: 'dv' };
  private readonly timeoutMs: number;
  private readonly retries: number;

  /** @throws Error when `timeoutMs` is not a positive integer or `retries` not a whole number ≥ 0 */
  constructor(options: CloudflareEdgeProviderOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error(`Cloudflare timeout must be a positive whole number of ms, not ${timeoutMs}.`);
    const retries = options.retries ?? DEFAULT_RETRIES;
    if (!Number.isInteger(retries) || retries < 0) throw new Error(`Cloudflare retries must be a whole number ≥ 0, not ${retries}.`);
    this.cnameTarget = options.cnameTarget;
    this.zoneId = options.zoneId;
    this.ssl = { method: options.sslMethod ?? 'txt', type: 'dv' };
    this.timeoutMs = timeoutMs;
    this.retries = retries;
    // Every credential is given explicitly (null for the unused ones): the client would otherwise
    // read CLOUDFLARE_API_KEY, CLOUDFLARE_EMAIL and others from the environment, and adapters
    // receive their options, never the environment (the one variable it reads regardless is
    // CLOUDFLARE_CUSTOM_HEADERS, extra headers it adds to every request; there is no option to turn
    // that off). Logging is off: failures surface as DomainError.
    this.client = new Cloudflare({
      apiToken: options.apiToken,
      apiKey: null,
      apiEmail: null,
      userServiceKey: null,
      baseURL: options.baseUrl ?? CLOUDFLARE_API_BASE_URL,
      timeout: timeoutMs,
      maxRetries: retries,
      logLevel: 'off',
    });
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502) */
  async create(options: { hostname: string }): Promise<{ exists: boolean; hostname: EdgeHostname }> {
    const what = `create the custom hostname ${options.hostname}`;
    try {
      const created = await this.call(what, 0, (signal) =>
        this.client.customHostnames.create({ zone_id: this.zoneId, hostname: options.hostname, ssl: this.ssl }, { signal, maxRetries: 0 }),
      );
      return { exists: false, hostname: toEdgeHostname(created) };
    } catch (error) {
      if (!(error instanceof DomainError) || !hasCode(error.cause, DUPLICATE_HOSTNAME)) throw error;
    }
    const existing = await this.findByHostname(options.hostname);
    if (!existing) {
      throw new DomainError('EDGE_PROVIDER_ERROR', `Cloudflare reported ${options.hostname} as a duplicate custom hostname but does not list it; try again.`);
    }
    return { exists: true, hostname: toEdgeHostname(existing) };
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502) */
  async get(options: { providerId: string }): Promise<EdgeHostname | undefined> {
    try {
      const found = await this.call(`read the custom hostname ${options.providerId}`, this.retries, (signal) =>
        this.client.customHostnames.get(options.providerId, { zone_id: this.zoneId }, { signal }),
      );
      return toEdgeHostname(found);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502), also when Cloudflare no longer has the hostname */
  async refresh(options: { providerId: string }): Promise<EdgeHostname> {
    try {
      const edited = await this.call(`re-validate the custom hostname ${options.providerId}`, this.retries, (signal) =>
        this.client.customHostnames.edit(options.providerId, { zone_id: this.zoneId, ssl: this.ssl }, { signal }),
      );
      return toEdgeHostname(edited);
    } catch (error) {
      if (isNotFound(error)) {
        throw new DomainError('EDGE_PROVIDER_ERROR', `Cloudflare no longer has the custom hostname ${options.providerId}; set the custom domain again.`);
      }
      throw error;
    }
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502) */
  async delete(options: { providerId: string }): Promise<void> {
    try {
      await this.call(`delete the custom hostname ${options.providerId}`, this.retries, (signal) =>
        this.client.customHostnames.delete(options.providerId, { zone_id: this.zoneId }, { signal }),
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** The zone's custom hostname named `hostname` (`GET …/custom_hostnames?hostname=`), if any. */
  private async findByHostname(hostname: string): Promise<CloudflareCustomHostname | undefined> {
    // `query` in the request options replaces the typed parameters: those offer only the newer
    // `hostname.exact` filter (serialised as `hostname.exact=`), while `?hostname=` is the exact
    // match Cloudflare documents for finding one hostname ("Common API calls"). Only the first
    // page is read: an exact match has at most one entry.
    const page = await this.call(`look up the custom hostname ${hostname}`, this.retries, (signal) =>
      this.client.customHostnames.list({ zone_id: this.zoneId }, { query: { hostname }, signal }),
    );
    const wanted = hostname.toLowerCase();
    return (page.result as CloudflareCustomHostname[]).find((one) => one.hostname.toLowerCase() === wanted);
  }

  /**
   * Runs one client call within `timeoutMs` (retries included) and turns every failure into
   * DomainError EDGE_PROVIDER_ERROR (the client's error as `cause`, so callers can read
   * Cloudflare's codes). The client's own timeout covers the wait for one response head only; the
   * deadline here also ends a body that never finishes and the back-off between retries, and its
   * signal cancels the request in flight.
   */
  private async call<T>(what: string, retries: number, run: (signal: AbortSignal) => PromiseLike<T>): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new DomainError('EDGE_PROVIDER_ERROR', `Cloudflare did not answer within ${this.timeoutMs} ms when asked to ${what}; try again later.`));
        controller.abort();
      }, this.timeoutMs);
    });
    const attempt = Promise.resolve(run(controller.signal));
    // The losing promise of the race must not become an unhandled rejection.
    attempt.catch(() => undefined);
    try {
      const result = await Promise.race([attempt, deadline]);
      if (result === null || result === undefined) {
        throw new DomainError('EDGE_PROVIDER_ERROR', `Cloudflare answered without a result when asked to ${what}.`);
      }
      return result;
    } catch (error) {
      throw toEdgeProviderError(what, retries, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** DomainError EDGE_PROVIDER_ERROR for a failed call, with the client's error as `cause`. */
function toEdgeProviderError(what: string, retries: number, error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const tried = retries > 0 ? `, after ${retries + 1} attempts` : '';
  let message: string;
  let details: unknown;
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? (error.cause.cause instanceof Error ? error.cause.cause.message : error.cause.message) : error.message;
    message = `Cloudflare could not be reached to ${what} (${cause}${tried}); try again later.`;
  } else if (error instanceof APIError && error.status !== undefined) {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- the cloudflare package types an APIError's fields as any
    const errors = cloudflareErrors(error);
    const reasons = errors.map((one) => `${one.code} ${one.message}`).join('; ') || 'no error in the body';
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the cloudflare package types an APIError's fields as any
    details = { provider: 'cloudflare', status: error.status, errors };
    if (error.status === 401 || error.status === 403) {
      message = `Cloudflare refused the API token when asked to ${what} (HTTP ${error.status}: ${reasons}); check the token and its zone permissions.`;
    } else if (error.status >= 500) {
      message = `Cloudflare failed to ${what} (HTTP ${error.status}${tried}: ${reasons}); try again later.`;
    } else {
      message = `Cloudflare refused to ${what} (HTTP ${error.status}: ${reasons}).`;
    }
  } else {
    message = `Cloudflare could not ${what}: ${error instanceof Error ? error.message : String(error)}.`;
  }
  const domainError = new DomainError('EDGE_PROVIDER_ERROR', message, details);
  domainError.cause = error;
  return domainError;
}

/** The `errors` of Cloudflare's envelope, as `{ code, message }`. */
function cloudflareErrors(error: APIError): Array<{ code: number; message: string }> {
  return error.errors.map((one) => ({ code: Number(one.code), message: String(one.message ?? '') }));
}

/** True when `error` is a Cloudflare answer carrying error `code`. */
function hasCode(error: unknown, code: number): boolean {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- the cloudflare package types an APIError's fields as any
  return error instanceof APIError && error.status !== undefined && cloudflareErrors(error).some((one) => one.code === code);
}

/** True for DomainError caused by Cloudflare's 404 or error 1436 (no such custom hostname). */
function isNotFound(error: unknown): boolean {
  if (!(error instanceof DomainError)) return false;
  const cause = error.cause;
  return (cause instanceof APIError && cause.status === 404) || hasCode(cause, HOSTNAME_NOT_FOUND);
}

/** A Cloudflare custom hostname as the port's {@link EdgeHostname}: statuses passed through. */
function toEdgeHostname(result: CloudflareCustomHostname): EdgeHostname {
  if (typeof result.id !== 'string' || typeof result.hostname !== 'string') {
    throw new DomainError('EDGE_PROVIDER_ERROR', 'Cloudflare answered with a custom hostname without id or hostname.');
  }
  const records: DnsRecord[] = [];
  const ownership = result.ownership_verification;
  if (ownership?.name && ownership.value && (ownership.type ?? 'txt').toLowerCase() === 'txt') {
    records.push({ type: 'TXT', name: ownership.name, value: ownership.value, purpose: 'ownership' });
  }
  for (const record of result.ssl?.validation_records ?? []) {
    if (record.txt_name && record.txt_value) {
      records.push({ type: 'TXT', name: record.txt_name, value: record.txt_value, purpose: 'ssl_validation' });
    } else if (record.cname && record.cname_target) {
      records.push({ type: 'CNAME', name: record.cname, value: record.cname_target, purpose: 'ssl_validation' });
    }
    // http_url/http_body: served by Cloudflare itself once the CNAME is in place (see the class).
  }
  const errors = [
    ...(result.verification_errors ?? []),
    ...(result.ssl?.validation_errors ?? []).map((one) => one.message).filter((message): message is string => typeof message === 'string' && message !== ''),
  ];
  return {
    providerId: result.id,
    hostname: result.hostname.toLowerCase(),
    status: result.status ?? 'unknown',
    sslStatus: result.ssl?.status ?? 'unknown',
    validationRecords: records,
    errors: [...new Set(errors)],
  };
}
