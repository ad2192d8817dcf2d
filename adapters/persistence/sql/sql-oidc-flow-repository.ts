import type { Kysely } from 'kysely';
import type { OidcFlow, OidcFlowRepository, SignInCode } from '../../../core/sso/oidc-flow-repository.js';
import { toDate, toMillis } from './rows.js';
import type { HangarDatabase } from './schema.js';

/**
 * {@link OidcFlowRepository} over `oidc_flows` and `oidc_sign_in_codes` (migration 0029). Each
 * `consume…` is one DELETE … RETURNING guarded by expiry, so a flow or code is used at most once
 * even with several processes.
 */
export class SqlOidcFlowRepository implements OidcFlowRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async createFlow(flow: OidcFlow): Promise<void> {
    await this.db
      .insertInto('oidc_flows')
      .values({
        state_hash: flow.stateHash,
        nonce: flow.nonce,
        code_verifier: flow.codeVerifier,
        invite_hash: flow.inviteHash,
        expires_at: toMillis(flow.expiresAt),
      })
      .execute();
  }

  async consumeFlow(options: { stateHash: string; now: Date }): Promise<OidcFlow | undefined> {
    const row = await this.db
      .deleteFrom('oidc_flows')
      .where('state_hash', '=', options.stateHash)
      .where('expires_at', '>', toMillis(options.now))
      .returningAll()
      .executeTakeFirst();
    return (
      row && { stateHash: row.state_hash, nonce: row.nonce, codeVerifier: row.code_verifier, inviteHash: row.invite_hash, expiresAt: toDate(row.expires_at) }
    );
  }

  /** @throws the driver's error for an unknown user (foreign key) */
  async createCode(code: SignInCode): Promise<void> {
    await this.db
      .insertInto('oidc_sign_in_codes')
      .values({ code_hash: code.codeHash, user_id: code.userId, expires_at: toMillis(code.expiresAt) })
      .execute();
  }

  async consumeCode(options: { codeHash: string; now: Date }): Promise<{ userId: string } | undefined> {
    const row = await this.db
      .deleteFrom('oidc_sign_in_codes')
      .where('code_hash', '=', options.codeHash)
      .where('expires_at', '>', toMillis(options.now))
      .returning(['user_id'])
      .executeTakeFirst();
    return row && { userId: row.user_id };
  }

  async deleteExpired(options: { now: Date }): Promise<number> {
    const now = toMillis(options.now);
    const flows = await this.db.deleteFrom('oidc_flows').where('expires_at', '<=', now).executeTakeFirst();
    const codes = await this.db.deleteFrom('oidc_sign_in_codes').where('expires_at', '<=', now).executeTakeFirst();
    return Number(flows.numDeletedRows) + Number(codes.numDeletedRows);
  }
}
