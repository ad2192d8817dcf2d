import { normaliseEmail, type User } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import { DomainError, isDomainError } from '../shared/errors.js';

/** The account an administrator acts on: by id (the API) or by e-mail (the CLI). */
export type AccountRef = { id: string } | { email: string };

/**
 * Looks up the account `ref` names.
 * @throws DomainError INVALID_EMAIL (400), USER_NOT_FOUND (404)
 */
export async function accountOf(users: UserRepository, ref: AccountRef): Promise<User> {
  const user = 'id' in ref ? await users.findById(ref.id) : await users.findByEmail(normaliseEmail(ref.email));
  if (!user) throw 'id' in ref ? noAccountWithId() : new DomainError('USER_NOT_FOUND', `No account with the e-mail address ${ref.email}.`);
  return user;
}

/** The refusal of an account id that names no account. @returns DomainError USER_NOT_FOUND (404) */
export function noAccountWithId(): DomainError {
  return new DomainError('USER_NOT_FOUND', 'No account with this id.');
}

/**
 * Awaits `work`, an administrator's reads of one account. AccountPolicy and GetUsage refuse an
 * account that no longer exists with UNAUTHORIZED, the answer its own owner gets; an administrator
 * reading an account that a background deletion removes between two reads gets USER_NOT_FOUND.
 * @returns what `work` resolves to
 * @throws DomainError USER_NOT_FOUND (404) in place of UNAUTHORIZED; otherwise what `work` throws
 */
export async function whileAccountExists<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isDomainError(error, 'UNAUTHORIZED')) throw noAccountWithId();
    throw error;
  }
}

/** True when `user` counts for the last-admin rule: an administrator that is not suspended. */
export function isActiveAdmin(user: Pick<User, 'role' | 'suspendedAt'>): boolean {
  return user.role === 'admin' && user.suspendedAt === null;
}

/**
 * Refuses an action on `user` by the last-admin rule (docs/admin.md): taking the last active
 * administrator out (demotion, suspension, deletion). The check itself is the repository's
 * (UserRepository.applyAdminChanges with `keepAnAdmin`), atomic with the change.
 * @throws DomainError LAST_ADMIN (409), always
 */
export function lastAdmin(user: Pick<User, 'email'>): never {
  throw new DomainError('LAST_ADMIN', `${user.email} is the last active administrator: promote another account first.`);
}
