import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The parsed JSON body. */
  payload: { type: string; timestamp: string; data: any };
  /** The status the receiver answered. */
  status: number;
}

/**
 * A local webhook receiver for tests, on 127.0.0.1. It records every request and answers each with
 * the next of `script` (a status, or `hang` to never answer), then 204. `verified(secret)` checks each
 * recorded request with the `standardwebhooks` package (the Standard Webhooks reference library).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Answers for the next requests, in order: a status, or `hang` (no answer at all: the sender's deadline). */
  script: (number | 'hang')[] = [];
  private readonly server: http.Server;
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const next = this.script.shift() ?? 204;
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        let payload: ReceivedWebhook['payload'];
        try {
          payload = JSON.parse(body) as ReceivedWebhook['payload'];
        } catch {
          payload = { type: '(not JSON)', timestamp: '', data: body };
        }
        this.received.push({ path: req.url ?? '', headers, body, payload, status: next === 'hang' ? 0 : next });
        if (next === 'hang') {
          this.hanging.add(res);
          return;
        }
        res.writeHead(next).end();
      });
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  /** `http://127.0.0.1:<port><path>`. */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Waits until `count` requests (matching `type` when given) have arrived; returns them. */
  async waitFor(count: number, options: { type?: string; timeoutMs?: number } = {}): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const matching = this.received.filter((r) => options.type === undefined || r.payload.type === options.type);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline)
        throw new Error(
          `expected ${count} webhook(s)${options.type ? ` of ${options.type}` : ''}, got ${matching.length}: ${this.received.map((r) => r.payload.type).join(', ')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Verifies `received` with the standardwebhooks package and `secret`; returns the parsed payload. @throws WebhookVerificationError */
  static verify(received: ReceivedWebhook, secret: string): unknown {
    return new Webhook(secret).verify(received.body, {
      'webhook-id': received.headers['webhook-id'],
      'webhook-timestamp': received.headers['webhook-timestamp'],
      'webhook-signature': received.headers['webhook-signature'],
    });
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
