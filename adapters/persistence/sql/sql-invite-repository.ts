import type { Kysely, Selectable } from 'kysely';
import type { Invite } from '../../../core/invites/invite.js';
import type { InviteRepository } from '../../../core/invites/invite-repository.js';
import { toDate, toMillis, toNullableDate, toNullableMillis } from './rows.js';
import type { HangarDatabase, InvitesTable } from './schema.js';

function toInvite(row: Selectable<InvitesTable>): Invite {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    planName: row.plan_name,
    createdAt: toDate(row.created_at),
    expiresAt: toNullableDate(row.expires_at),
    usedAt: toNullableDate(row.used_at),
    usedBy: row.used_by,
    revokedAt: toNullableDate(row.revoked_at),
  };
}

/**
 * {@link InviteRepository} over `invites` (migration 0030). `claim` is one conditional
 * UPDATE … RETURNING, so an invite is used at most once even with several processes.
 */
export class SqlInviteRepository implements InviteRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async create(invite: Invite): Promise<void> {
    await this.db
      .insertInto('invites')
      .values({
        id: invite.id,
        token_hash: invite.tokenHash,
        plan_name: invite.planName,
        created_at: toMillis(invite.createdAt),
        expires_at: toNullableMillis(invite.expiresAt),
        used_at: toNullableMillis(invite.usedAt),
        used_by: invite.usedBy,
        revoked_at: toNullableMillis(invite.revokedAt),
      })
      .execute();
  }

  async list(options: { limit: number }): Promise<Invite[]> {
    const rows = await this.db.selectFrom('invites').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map(toInvite);
  }

  async claim(options: { tokenHash: string; userId: string; now: Date }): Promise<Invite | undefined> {
    const now = toMillis(options.now);
    const row = await this.db
      .updateTable('invites')
      .set({ used_at: now, used_by: options.userId })
      .where('token_hash', '=', options.tokenHash)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .returningAll()
      .executeTakeFirst();
    return row && toInvite(row);
  }

  async release(options: { id: string; userId: string }): Promise<void> {
    await this.db.updateTable('invites').set({ used_at: null, used_by: null }).where('id', '=', options.id).where('used_by', '=', options.userId).execute();
  }

  async revoke(options: { id: string; now: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('invites')
      .set({ revoked_at: toMillis(options.now) })
      .where('id', '=', options.id)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
