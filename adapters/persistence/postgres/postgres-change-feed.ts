import pg from 'pg';
import type { Change, ChangeFeed, ChangeListener } from '../../../core/shared/change-feed.js';
import { ChangeListeners } from '../../changes/change-listeners.js';

/** Default of {@link PostgresChangeFeedOptions.fallbackMs}. */
export const CHANGE_FEED_FALLBACK_MS = 5_000;
/** Default of {@link PostgresChangeFeedOptions.heartbeatMs}. */
const HEARTBEAT_MS = 2_000;
/** Pauses between attempts to listen again, in ms: doubling from the first, the last repeated. */
const RECONNECT_PAUSES_MS = [100, 200, 400, 800, 1_600, 2_000] as const;

/** Options of {@link PostgresChangeFeed}. */
export interface PostgresChangeFeedOptions {
  /** node-postgres settings of the listening connection (its own session, outside the pool). */
  client: pg.ClientConfig;
  /**
   * While the feed cannot listen: `everything` is delivered at once and then every this many ms,
   * so no cache answers from an entry older than that (ms, default 5 000).
   */
  fallbackMs?: number;
  /**
   * How often the listening connection is asked a `select 1`, in ms (default 2 000): a connection
   * that does not answer within the same time is taken as lost (a network that silently drops
   * packets gives no error otherwise).
   */
  heartbeatMs?: number;
  /** Told when the feed goes down (with the reason) and when it listens again after that; for the operational log. */
  onStateChange?: (state: 'listening' | 'down', error?: unknown) => void;
}

/**
 * {@link ChangeFeed} of a Postgres database: `LISTEN` on the channel `hangar:<schema>` (at most 63
 * characters), on a connection of its own, to the notifications that migration 0010's triggers send
 * in the transaction of each change (one change, or an array of them, as JSON). A notification is
 * delivered to the listeners as soon as it arrives, typically a few ms after the commit.
 *
 * When the connection fails (an error, the server or network gone, a heartbeat unanswered), the
 * feed delivers `everything` at once, then every `fallbackMs` while it is down, and tries to listen
 * again after 0.1, 0.2, 0.4… up to 2 s; once it listens again it delivers `everything` (what was
 * committed meanwhile is unknown). Listening starts before that last `everything`, so no change falls
 * between the two. Notifications a server could not deliver in time are lost only with the session
 * (Postgres keeps them queued for a listening session), which the same path covers.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly listeners = new ChangeListeners();
  private client: pg.Client | undefined;
  private channel: string | undefined;
  private closed = false;
  /** The feed was down since it last listened (its return is reported). */
  private wasDown = false;
  private attempts = 0;
  private fallbackTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly fallbackMs: number;
  private readonly heartbeatMs: number;

  private constructor(private readonly options: PostgresChangeFeedOptions) {
    this.fallbackMs = options.fallbackMs ?? CHANGE_FEED_FALLBACK_MS;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  /**
   * Starts listening. Resolves once the first attempt succeeded or failed; after a failure the feed
   * is down (fallback) and keeps trying. Never rejects.
   */
  static async start(options: PostgresChangeFeedOptions): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(options);
    feed.startFallback();
    await feed.listen();
    return feed;
  }

  /** Whether the feed listens now (false: down, caches expire every fallback period). */
  get listening(): boolean {
    return this.client !== undefined;
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.subscribe(listener);
  }

  /** Notifications are delivered as they arrive: nothing to wait for. */
  catchUp(): undefined {
    return undefined;
  }

  /** Stops listening and every timer; listeners are not called any more. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.fallbackTimer);
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    this.listeners.clear();
    await client?.end().catch(() => {});
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.options.client);
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (this.client === client && message.channel === this.channel) this.received(message.payload);
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string | null }>('select current_schema() as schema');
      const channel = `hangar:${rows[0]?.schema ?? 'public'}`.slice(0, 63);
      await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (this.closed) {
        await client.end().catch(() => {});
        return;
      }
      this.channel = channel;
      this.client = client;
      this.attempts = 0;
      clearInterval(this.fallbackTimer);
      this.fallbackTimer = undefined;
      this.heartbeatTimer = setInterval(() => this.heartbeat(client), this.heartbeatMs).unref();
      // Whatever was committed before LISTEN took effect is unknown to this process.
      this.listeners.deliver({ kind: 'everything' });
      if (this.wasDown) this.options.onStateChange?.('listening');
      this.wasDown = false;
    } catch (error) {
      client.end().catch(() => {});
      this.scheduleReconnect(error);
    }
  }

  private received(payload: string | undefined): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload ?? '');
    } catch {
      parsed = undefined;
    }
    const changes = Array.isArray(parsed) ? parsed : [parsed];
    for (const change of changes) this.listeners.deliver(isChange(change) ? change : { kind: 'everything' });
  }

  private heartbeat(client: pg.Client): void {
    let answered = false;
    const timer = setTimeout(() => {
      if (!answered) this.lost(client, new Error(`the listening connection did not answer within ${this.heartbeatMs} ms`));
    }, this.heartbeatMs).unref();
    client.query('select 1').then(
      () => {
        answered = true;
        clearTimeout(timer);
      },
      (error: unknown) => {
        answered = true;
        clearTimeout(timer);
        this.lost(client, error);
      },
    );
  }

  /** The listening connection `client` failed: fall back, drop it, try again later. */
  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    // end() may wait for a socket that no longer answers: the connection is destroyed underneath.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    client.end().catch(() => {});
    this.startFallback();
    this.listeners.deliver({ kind: 'everything' });
    this.scheduleReconnect(error);
  }

  private startFallback(): void {
    if (this.fallbackTimer || this.closed) return;
    this.fallbackTimer = setInterval(() => this.listeners.deliver({ kind: 'everything' }), this.fallbackMs).unref();
  }

  private scheduleReconnect(error: unknown): void {
    if (this.closed) return;
    if (this.attempts === 0) this.options.onStateChange?.('down', error);
    this.wasDown = true;
    const pause = RECONNECT_PAUSES_MS[Math.min(this.attempts, RECONNECT_PAUSES_MS.length - 1)];
    this.attempts += 1;
    this.reconnectTimer = setTimeout(() => void this.listen(), pause).unref();
  }
}

/** Whether `value` is a {@link Change} as the triggers of migrations 0010 and 0049 write them. */
function isChange(value: unknown): value is Change {
  if (typeof value !== 'object' || value === null) return false;
  const change = value as Record<string, unknown>;
  const text = (name: string) => typeof change[name] === 'string';
  switch (change.kind) {
    case 'account':
      return text('accountId');
    case 'api_key':
      return text('keyHash');
    case 'session':
      return text('sessionId');
    case 'hostname':
      return text('hostname') && text('accountId');
    case 'file':
      return text('fileId');
    case 'plans':
    case 'everything':
      return true;
    default:
      return false;
  }
}
