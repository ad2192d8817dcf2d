import type { FileAddresses } from '../files/file-view.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import type { Settings } from './settings.js';

/** Reads the account's settings (spec 4.13). @throws DomainError UNAUTHORIZED when the account is gone */
export class GetSettings {
  constructor(private readonly deps: { accounts: AccountPolicy; addresses: FileAddresses }) {}

  async execute(input: { userId: string }): Promise<Settings> {
    const { uploadLimitBytes } = await this.deps.accounts.view(input.userId);
    return {
      publicUrlBase: await this.deps.addresses.publicUrlBase(input.userId),
      customDomain: null,
      maxUploadSizeBytes: uploadLimitBytes,
    };
  }
}
