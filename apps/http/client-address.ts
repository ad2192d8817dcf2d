import { isIPv6 } from 'node:net';
import type { Context, Next } from 'koa';

/**
 * The client's address as rate limits see it (OWASP ASVS 11.1.4): the socket's peer, or with
 * `trustProxyHops` > 0 the entry of `X-Forwarded-For` that many from the right (each trusted proxy
 * appends the address it received the request from; entries further left are the client's own
 * say and are ignored). IPv4-mapped IPv6 addresses become IPv4, and IPv6 addresses are reduced
 * to their /64 prefix, the block one subscriber usually holds whole.
 * @returns the address, or 'unknown' when neither source gives one
 */
export function clientAddress(ctx: Pick<Context, 'get' | 'socket'>, trustProxyHops: number): string {
  return normaliseAddress(peerAddress(ctx, trustProxyHops)) || 'unknown';
}

/** The address {@link clientAddress} starts from, as it came (for logs). */
export function peerAddress(ctx: Pick<Context, 'get' | 'socket'>, trustProxyHops: number): string {
  const address = ctx.socket.remoteAddress ?? '';
  if (trustProxyHops === 0) return address;
  const hops = ctx
    .get('X-Forwarded-For')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return hops.length === 0 ? address : hops[Math.max(0, hops.length - trustProxyHops)];
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; an IPv6 address → its /64 prefix (`2001:db8:1:2::/64`); anything else as it is, trimmed. */
export function normaliseAddress(raw: string): string {
  const address = raw.trim().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address.slice(0, 64);
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Middleware: puts {@link clientAddress} in `ctx.state.client` (rate limits), {@link peerAddress} in
 * `ctx.state.clientIp` (activity log), and in `ctx.state.device` the SessionDevice (`userAgent`,
 * `ip`) that a sign-in records with the session it opens (`GET /auth/sessions`).
 */
export function clientAddressMiddleware(trustProxyHops: number) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.clientIp = peerAddress(ctx, trustProxyHops) || ctx.ip;
    ctx.state.client = clientAddress(ctx, trustProxyHops);
    ctx.state.device = { userAgent: ctx.get('User-Agent') || undefined, ip: ctx.state.clientIp || undefined };
    await next();
  };
}
