import type { UserRepository } from '../accounts/user-repository.js';
import type { FileOptions } from '../files/file-options.js';
import type { FileAddresses } from '../files/file-view.js';
import { uploadLimitOf } from '../files/upload-limit.js';
import type { Settings } from './settings.js';

/** Reads the account's settings (spec 4.13). @throws DomainError UNAUTHORIZED when the account is gone */
export class GetSettings {
  constructor(private readonly deps: { users: UserRepository; addresses: FileAddresses; options: FileOptions }) {}

  async execute(input: { userId: string }): Promise<Settings> {
    return {
      publicUrlBase: await this.deps.addresses.publicUrlBase(input.userId),
      customDomain: null,
      maxUploadSizeBytes: await uploadLimitOf(this.deps.users, this.deps.options, input.userId),
    };
  }
}
