import type { Kysely, Selectable } from 'kysely';
import type { AdminAction, AdminAuditEntry } from '../../../core/admin/admin-audit.js';
import type { AdminAuditLog } from '../../../core/admin/admin-audit-log.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { toDate, toMillis, toNumber } from './rows.js';
import type { AdminAuditTable, HangarDatabase } from './schema.js';

function parseJson(text: string | null): Record<string, unknown> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
}

function toEntry(row: Selectable<AdminAuditTable>): AdminAuditEntry {
  return {
    id: row.id,
    createdAt: toDate(row.created_at),
    actor: { id: row.actor_id, email: row.actor_email, client: row.client },
    action: row.action as AdminAction,
    targetId: row.target_id,
    targetEmail: row.target_email,
    before: parseJson(row.before_json),
    after: parseJson(row.after_json),
  };
}

/**
 * {@link AdminAuditLog} over `admin_audit` (migration 0045). Entries are not tied to accounts by a
 * foreign key: they outlive the accounts they are about (and their actors). Listed newest first
 * through the index on (created_at, id); one account's through (target_id, created_at).
 */
export class SqlAdminAuditLog implements AdminAuditLog {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async record(entry: AdminAuditEntry): Promise<void> {
    await this.db
      .insertInto('admin_audit')
      .values({
        id: entry.id,
        created_at: toMillis(entry.createdAt),
        actor_id: entry.actor.id,
        actor_email: entry.actor.email,
        action: entry.action,
        target_id: entry.targetId,
        target_email: entry.targetEmail,
        client: entry.actor.client,
        before_json: entry.before === null ? null : JSON.stringify(entry.before),
        after_json: entry.after === null ? null : JSON.stringify(entry.after),
      })
      .execute();
  }

  async list(options: { window: Window; targetId?: string }): Promise<Paged<AdminAuditEntry>> {
    let rows = this.db.selectFrom('admin_audit');
    if (options.targetId !== undefined) rows = rows.where('target_id', '=', options.targetId);
    const [count, items] = await Promise.all([
      rows.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow(),
      rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.window.limit).offset(options.window.offset).execute(),
    ]);
    return { items: items.map(toEntry), total: toNumber(count.total) };
  }

  async deleteBefore(before: Date): Promise<number> {
    const result = await this.db.deleteFrom('admin_audit').where('created_at', '<', toMillis(before)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
