import type { UserRepository } from '../accounts/user-repository.js';
import { DomainError } from '../shared/errors.js';
import type { FileOptions } from './file-options.js';

/**
 * The account's upload limit in bytes: its own `max_upload_size_bytes`, else the service default.
 * @throws DomainError UNAUTHORIZED when the account no longer exists
 */
export async function uploadLimitOf(users: UserRepository, options: FileOptions, userId: string): Promise<number> {
  const user = await users.findById(userId);
  if (!user) throw new DomainError('UNAUTHORIZED', 'The account no longer exists.');
  return user.maxUploadSizeBytes ?? options.defaultMaxUploadSizeBytes;
}
