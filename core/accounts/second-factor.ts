import type { PasskeyRepository } from '../passkeys/passkey-repository.js';
import type { MfaRepository } from './mfa-repository.js';
import type { SessionRepository } from './session-repository.js';

/**
 * Whether the account has a second factor now: a confirmed TOTP factor or at least one passkey
 * (docs/account-security.md). Two reads, by the account's id.
 */
export async function hasSecondFactor(deps: { mfa: MfaRepository; passkeys: PasskeyRepository }, userId: string): Promise<boolean> {
  const [totp, passkeys] = await Promise.all([deps.mfa.findTotp(userId), deps.passkeys.listForUser(userId)]);
  return (totp !== undefined && totp.confirmedAt !== null) || passkeys.length > 0;
}

/**
 * After an enrolment (TOTP confirmed, passkey registered) by the session `sessionId`: marks that
 * session as having proved a second factor (Session.secondFactorAt) when the enrolled factor is the
 * account's first, since the enrolment itself proved it holds that factor. A session of an account
 * that had a factor already and that did not prove it stays unmarked: enrolling one more factor is
 * no proof of the factors the account had (docs/admin.md, "Who may call /admin").
 */
export async function markEnrollingSession(
  deps: { sessions: SessionRepository },
  options: { sessionId?: string; hadFactor: boolean; at: Date },
): Promise<void> {
  if (options.sessionId === undefined || options.hadFactor) return;
  await deps.sessions.markSecondFactor({ sessionId: options.sessionId, at: options.at });
}
