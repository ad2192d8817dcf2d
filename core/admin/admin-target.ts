import { normaliseEmail, type User } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import { DomainError } from '../shared/errors.js';

/** The account an administrator acts on: by id (the API) or by e-mail (the CLI). */
export type AccountRef = { id: string } | { email: string };

/**
 * Looks up the account `ref` names.
 * @throws DomainError INVALID_EMAIL (400), USER_NOT_FOUND (404)
 */
export async function accountOf(users: UserRepository, ref: AccountRef): Promise<User> {
  const user = 'id' in ref ? await users.findById(ref.id) : await users.findByEmail(normaliseEmail(ref.email));
  if (!user) throw new DomainError('USER_NOT_FOUND', 'id' in ref ? 'No account with this id.' : `No account with the e-mail address ${ref.email}.`);
  return user;
}

/** True when `user` counts for the last-admin rule: an administrator that is not suspended. */
export function isActiveAdmin(user: Pick<User, 'role' | 'suspendedAt'>): boolean {
  return user.role === 'admin' && user.suspendedAt === null;
}

/**
 * The last-admin rule (docs/admin.md): an action that takes `user` out of the active
 * administrators (demotion, suspension, deletion) is refused when no other one is left.
 * @throws DomainError LAST_ADMIN (409)
 */
export async function keepAnAdmin(users: UserRepository, user: User): Promise<void> {
  if (!isActiveAdmin(user)) return;
  if ((await users.countActiveAdmins()) <= 1) {
    throw new DomainError('LAST_ADMIN', `${user.email} is the last active administrator: promote another account first.`);
  }
}
