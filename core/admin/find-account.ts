import { normaliseEmail, type User } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import { DomainError } from '../shared/errors.js';

/**
 * Looks an account up by e-mail for administration.
 * @throws DomainError INVALID_EMAIL (400), USER_NOT_FOUND (404)
 */
export async function findAccount(users: UserRepository, email: string): Promise<User> {
  const user = await users.findByEmail(normaliseEmail(email));
  if (!user) throw new DomainError('USER_NOT_FOUND', `No account with the e-mail address ${email}.`);
  return user;
}
