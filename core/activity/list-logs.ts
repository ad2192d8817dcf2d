import { DomainError } from '../shared/errors.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { ActivityKind, ActivityLogEntry, ActivityPosition } from './activity-log.js';
import type { ActivityLogRepository } from './activity-log-repository.js';

/** The UUID form of entry ids (lower case, as stored). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The cursor of a position: `<created_at in ms>.<id>`; clients treat it as opaque. */
export function encodeActivityCursor(position: ActivityPosition): string {
  return `${position.createdAt.getTime()}.${position.id}`;
}

/** The position in a cursor from {@link encodeActivityCursor}. @throws DomainError INVALID_CURSOR (400) for anything else */
export function decodeActivityCursor(cursor: string): ActivityPosition {
  const match = /^(\d{1,15})\.(.+)$/.exec(cursor);
  if (!match || !UUID.test(match[2]))
    throw new DomainError('INVALID_CURSOR', 'This cursor is not one this list handed out: use next_cursor from the previous page.');
  return { createdAt: new Date(Number(match[1])), id: match[2] };
}

/** A page of the log and the cursor of the page after it (null on the last page). */
export interface LogPage extends Paged<ActivityLogEntry> {
  nextCursor: string | null;
}

/**
 * The account's activity log, newest first (spec 4.16), of one kind (`all` by default; `actions`:
 * uploads, deletes, keys, settings, sign-ins; `reads`: GET/HEAD/OPTIONS requests). Paged by `page`,
 * or by a stable cursor: `before` (a `nextCursor` from an earlier page) lists what follows that
 * entry, so entries logged meanwhile neither shift nor repeat rows (`page` then counts from the
 * cursor).
 * @throws DomainError INVALID_CURSOR (400)
 * @throws DomainError VALIDATION_FAILED (400) when `page` or `limit` is out of bounds ({@link toWindow})
 */
export class ListLogs {
  constructor(private readonly deps: { logs: ActivityLogRepository }) {}

  async execute(input: { userId: string; kind?: ActivityKind; before?: string } & PageRequest): Promise<LogPage> {
    const before = input.before === undefined ? undefined : decodeActivityCursor(input.before);
    const window = toWindow(input);
    // One more than asked, to know whether a next page exists without counting.
    const found = await this.deps.logs.list({
      userId: input.userId,
      window: { offset: window.offset, limit: window.limit + 1 },
      kind: input.kind ?? 'all',
      before,
    });
    const items = found.items.slice(0, window.limit);
    const last = items[items.length - 1];
    const nextCursor = found.items.length > window.limit && last ? encodeActivityCursor(last) : null;
    return { items, total: found.total, nextCursor };
  }
}
