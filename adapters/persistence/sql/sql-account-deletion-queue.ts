import { type Kysely, type Selectable, sql } from 'kysely';
import type { AccountDeletion, AccountDeletionQueue } from '../../../core/admin/account-deletion-queue.js';
import { toDate, toMillis, toNumber } from './rows.js';
import type { AccountDeletionsTable, HangarDatabase } from './schema.js';

function toDeletion(row: Selectable<AccountDeletionsTable>): AccountDeletion {
  return {
    userId: row.user_id,
    email: row.email,
    requestedAt: toDate(row.requested_at),
    actor: { id: row.actor_id, email: row.actor_email, client: row.actor_client },
    filesDeleted: toNumber(row.files_deleted),
  };
}

/**
 * {@link AccountDeletionQueue} over `account_deletions` (migration 0049). A claim reads the oldest
 * free deletion (through `account_deletions_lease`; a read, so the sweep every process runs every few
 * seconds writes nothing while there is none), then takes it with an UPDATE whose condition repeats
 * the lease test: of several processes claiming it at once, one updates the row and the others find
 * the condition false (SQLite's write lock; Postgres re-reads a row it waited on), so one process
 * gets each free deletion. Renewing, releasing and removing are conditional on the owner.
 */
export class SqlAccountDeletionQueue implements AccountDeletionQueue {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async request(deletion: Omit<AccountDeletion, 'filesDeleted'>): Promise<AccountDeletion> {
    await this.db
      .insertInto('account_deletions')
      .values({
        user_id: deletion.userId,
        email: deletion.email,
        requested_at: toMillis(deletion.requestedAt),
        actor_id: deletion.actor.id,
        actor_email: deletion.actor.email,
        actor_client: deletion.actor.client,
        files_deleted: 0,
        lease_owner: null,
        lease_until: 0,
      })
      .onConflict((c) => c.column('user_id').doNothing())
      .execute();
    const stored = await this.find(deletion.userId);
    if (!stored) throw new Error('An account deletion vanished right after it was recorded');
    return stored;
  }

  async find(userId: string): Promise<AccountDeletion | undefined> {
    const row = await this.db.selectFrom('account_deletions').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row && toDeletion(row);
  }

  async claim(options: { owner: string; now: Date; until: Date; userId?: string }): Promise<AccountDeletion | undefined> {
    const now = toMillis(options.now);
    const candidate = await this.db
      .selectFrom('account_deletions')
      .select('user_id')
      .where('lease_until', '<=', now)
      .$if(options.userId !== undefined, (query) => query.where('user_id', '=', options.userId!))
      .orderBy('requested_at')
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return undefined;
    const row = await this.db
      .updateTable('account_deletions')
      .set({ lease_owner: options.owner, lease_until: toMillis(options.until) })
      .where('user_id', '=', candidate.user_id)
      .where('lease_until', '<=', now)
      .returningAll()
      .executeTakeFirst();
    return row && toDeletion(row);
  }

  async renew(options: { userId: string; owner: string; until: Date; filesDeleted: number }): Promise<boolean> {
    const result = await this.db
      .updateTable('account_deletions')
      .set({ lease_until: toMillis(options.until), files_deleted: sql<number>`files_deleted + ${options.filesDeleted}` })
      .where('user_id', '=', options.userId)
      .where('lease_owner', '=', options.owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async release(options: { userId: string; owner: string }): Promise<void> {
    await this.db
      .updateTable('account_deletions')
      .set({ lease_owner: null, lease_until: 0 })
      .where('user_id', '=', options.userId)
      .where('lease_owner', '=', options.owner)
      .execute();
  }

  async remove(options: { userId: string; owner?: string }): Promise<boolean> {
    const result = await this.db
      .deleteFrom('account_deletions')
      .where('user_id', '=', options.userId)
      .$if(options.owner !== undefined, (query) => query.where('lease_owner', '=', options.owner!))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
