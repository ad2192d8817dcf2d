import type { UserRepository } from '../accounts/user-repository.js';

/**
 * Whether the files of account `userId` may be served to anyone (content origin, signed URLs,
 * shares): the account exists and is not suspended (docs/admin.md, "Suspension"). One lookup of the
 * account, which the repositories cache and the change feed invalidates on every process, so a
 * suspension stops every process serving within the feed's delay (at most 1 s).
 */
export async function servesFilesOf(users: Pick<UserRepository, 'findById'>, userId: string): Promise<boolean> {
  const owner = await users.findById(userId);
  return owner !== undefined && owner.suspendedAt === null;
}
