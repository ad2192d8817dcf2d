import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { DomainError } from '../../core/shared/errors.js';
import type { PublicAddressPolicy } from './public-addresses.js';

/** One webhook POST. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  /** The JSON body, exactly as signed. */
  body: string;
  /** Whole-request deadline in ms (connection, TLS, headers and body of the answer). */
  timeoutMs: number;
}

/** Port of the delivery worker: sends one request, answers its status, throws when no answer came. */
export interface WebhookSender {
  /** @throws Error (message for the delivery log) on a refused target, a network error or the deadline */
  send(request: WebhookRequest): Promise<{ status: number }>;
}

/** Bytes of an answer's body read before the connection is dropped (the body is not used). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends webhooks with node:http(s), one connection per request (no pooling: each connection is
 * pinned to the address checked for it). Before every request the host is resolved and checked by
 * the {@link PublicAddressPolicy}; the socket then connects to that checked address (a `lookup`
 * that answers it), while TLS still verifies the certificate for the URL's hostname, so a DNS answer
 * that changes between the check and the connection (rebinding) cannot redirect it. Redirects are
 * not followed: a 3xx is an answer like any other non-2xx (a failure).
 */
export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly options: { policy: PublicAddressPolicy; allowHttp?: boolean; userAgent?: string }) {}

  async send(request: WebhookRequest): Promise<{ status: number }> {
    const url = new URL(request.url);
    if (url.protocol !== 'https:' && !(this.options.allowHttp && url.protocol === 'http:')) throw new Error(`refused: ${url.protocol} URLs are not allowed`);
    let address: { address: string; family: 4 | 6 };
    try {
      [address] = (await this.options.policy.resolve(url.hostname)) as [{ address: string; family: 4 | 6 }];
    } catch (error) {
      throw new Error(error instanceof DomainError ? `refused: ${error.message}` : String(error), { cause: error });
    }
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
      else callback(null, address.address, address.family);
    };
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<{ status: number }>((resolve, reject) => {
      const req = client.request(
        {
          method: 'POST',
          protocol: url.protocol,
          host: hostname,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(request.body)),
            'user-agent': this.options.userAgent ?? 'Hangar-Webhooks/1',
            ...request.headers,
          },
          lookup: pinned,
          agent: false,
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) res.destroy();
          });
          res.on('error', () => undefined);
          res.on('close', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0 });
          });
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`timed out after ${request.timeoutMs} ms`)), request.timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(request.body);
    });
  }
}
