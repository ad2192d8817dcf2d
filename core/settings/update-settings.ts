import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { FileOptions } from '../files/file-options.js';
import type { GetSettings } from './get-settings.js';
import type { Settings } from './settings.js';

/**
 * Changes the account's settings (spec 4.14). `maxUploadSizeBytes`: a whole number of bytes from 1
 * to the service ceiling (`maxUploadSizeLimitBytes`); null goes back to the service default;
 * absent leaves it unchanged.
 * @throws DomainError INVALID_SETTINGS (400)
 */
export class UpdateSettings {
  constructor(private readonly deps: { users: UserRepository; settings: GetSettings; clock: Clock; options: FileOptions }) {}

  async execute(input: { userId: string; maxUploadSizeBytes?: number | null }): Promise<Settings> {
    const size = input.maxUploadSizeBytes;
    if (size !== undefined) {
      const ceiling = this.deps.options.maxUploadSizeLimitBytes;
      if (size !== null && (!Number.isSafeInteger(size) || size < 1 || size > ceiling)) {
        throw new DomainError('INVALID_SETTINGS', `max_upload_size_bytes must be a whole number from 1 to ${ceiling}.`, { max: ceiling });
      }
      await this.deps.users.setMaxUploadSize({ userId: input.userId, maxUploadSizeBytes: size, at: this.deps.clock.now() });
    }
    return this.deps.settings.execute({ userId: input.userId });
  }
}
