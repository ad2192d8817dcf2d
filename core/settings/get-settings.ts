import type { CustomDomainRepository } from '../domains/custom-domain-repository.js';
import type { FileAddresses } from '../files/file-view.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import type { Settings } from './settings.js';

/** Reads the account's settings (spec 4.13). @throws DomainError UNAUTHORIZED when the account is gone */
export class GetSettings {
  constructor(private readonly deps: { accounts: AccountPolicy; addresses: FileAddresses; domains: CustomDomainRepository }) {}

  async execute(input: { userId: string }): Promise<Settings> {
    const [{ user, uploadLimitBytes }, domain] = await Promise.all([this.deps.accounts.view(input.userId), this.deps.domains.findByUser(input.userId)]);
    return {
      publicUrlBase: this.deps.addresses.baseFor(domain),
      customDomain: domain ?? null,
      maxUploadSizeBytes: uploadLimitBytes,
      imageMetadata: user.imageMetadata,
    };
  }
}
