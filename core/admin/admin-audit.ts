/**
 * Who performs an administrator action: an administrator's account (`id`, `email`, and the client
 * address of the request when it came through the API), or the CLI on the server ({@link CLI_ACTOR}).
 */
export interface AdminActor {
  /** The administrator's account id; null for the CLI. */
  id: string | null;
  /** The administrator's e-mail, or `cli`. */
  email: string;
  /** The client address of the request (see client-address.ts); null for the CLI. */
  client: string | null;
}

/** The operator at the server's shell: the CLI acts with every power, as the audit log records. */
export const CLI_ACTOR: AdminActor = { id: null, email: 'cli', client: null };

/**
 * What an administrator did (docs/admin.md, "Audit log"). The names are stable: the API and the
 * dashboard show them as they are.
 */
export type AdminAction =
  | 'promote'
  | 'demote'
  | 'suspend'
  | 'reinstate'
  | 'update_account'
  | 'revoke_sessions'
  | 'reset_mfa'
  | 'resend_confirmation'
  | 'confirm_account'
  | 'delete_account'
  | 'create_invite'
  | 'revoke_invite'
  | 'update_plan';

/** One row of the audit log. */
export interface AdminAuditEntry {
  /** UUID. */
  id: string;
  createdAt: Date;
  actor: AdminActor;
  action: AdminAction;
  /** The account acted on (null for actions on no account, e.g. an invite); the e-mail is kept after the account is deleted. */
  targetId: string | null;
  targetEmail: string | null;
  /** The changed fields before and after (JSON values); null when the action changes no field. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Default of `ADMIN_AUDIT_RETENTION_DAYS`: days an audit entry is kept. */
export const DEFAULT_ADMIN_AUDIT_RETENTION_DAYS = 365;
