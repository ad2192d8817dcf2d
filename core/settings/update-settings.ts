import type { UserRepository } from '../accounts/user-repository.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { GetSettings } from './get-settings.js';
import type { Settings } from './settings.js';

/**
 * Changes the account's settings (spec 4.14). `maxUploadSizeBytes`: a whole number of bytes from 1
 * to the plan's `max_upload_size_bytes`; null goes back to the service default; absent leaves it unchanged.
 * @throws DomainError INVALID_SETTINGS (400)
 */
export class UpdateSettings {
  constructor(private readonly deps: { users: UserRepository; accounts: AccountPolicy; settings: GetSettings; clock: Clock }) {}

  async execute(input: { userId: string; maxUploadSizeBytes?: number | null }): Promise<Settings> {
    const size = input.maxUploadSizeBytes;
    if (size !== undefined) {
      const ceiling = (await this.deps.accounts.view(input.userId)).standing.plan.maxUploadSizeBytes;
      if (size !== null && (!Number.isSafeInteger(size) || size < 1 || size > ceiling)) {
        throw new DomainError('INVALID_SETTINGS', `max_upload_size_bytes must be a whole number from 1 to ${ceiling} (the plan's ceiling).`, { max: ceiling });
      }
      await this.deps.users.setMaxUploadSize({ userId: input.userId, maxUploadSizeBytes: size, at: this.deps.clock.now() });
    }
    return this.deps.settings.execute({ userId: input.userId });
  }
}
