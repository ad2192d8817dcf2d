import type { UserRepository } from '../accounts/user-repository.js';
import type { CustomDomains } from '../domains/custom-domains.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import type { Clock } from '../shared/clock.js';
import { IMAGE_METADATA_MODES, type ImageMetadataMode, isImageMetadataMode } from '../files/image-metadata/image-metadata-mode.js';
import { DomainError } from '../shared/errors.js';
import type { GetSettings } from './get-settings.js';
import type { Settings } from './settings.js';

/** Changes to the settings; absent fields stay as they are (spec 4.14). */
export interface SettingsChange {
  userId: string;
  /** Bytes, from 1 to the plan's ceiling; null goes back to the service default. */
  maxUploadSizeBytes?: number | null;
  /** A hostname to use, or null to remove the custom domain. */
  customDomain?: string | null;
  /** Re-run validation at the edge provider and store the new statuses. */
  refreshCustomDomain?: boolean;
  /** What uploads of images keep of their metadata from now on (docs/image-metadata.md); files stored before stay as they are. */
  imageMetadata?: ImageMetadataMode;
}

/**
 * Changes the account's settings (spec 4.14). Every value is checked before anything changes;
 * the custom domain goes through CustomDomains (provider first, compensated on local failure).
 * @throws DomainError INVALID_SETTINGS, INVALID_HOSTNAME, NO_CUSTOM_DOMAIN (400), HOSTNAME_TAKEN (409), EDGE_PROVIDER_ERROR (502)
 */
export class UpdateSettings {
  constructor(private readonly deps: { users: UserRepository; accounts: AccountPolicy; customDomains: CustomDomains; settings: GetSettings; clock: Clock }) {}

  async execute(input: SettingsChange): Promise<Settings> {
    const size = input.maxUploadSizeBytes;
    if (size !== undefined && size !== null) {
      const ceiling = (await this.deps.accounts.view(input.userId)).standing.plan.maxUploadSizeBytes;
      if (!Number.isSafeInteger(size) || size < 1 || size > ceiling) {
        throw new DomainError('INVALID_SETTINGS', `max_upload_size_bytes must be a whole number from 1 to ${ceiling} (the plan's ceiling).`, { max: ceiling });
      }
    }
    if (input.imageMetadata !== undefined && !isImageMetadataMode(input.imageMetadata)) {
      throw new DomainError('INVALID_SETTINGS', `image_metadata must be one of ${IMAGE_METADATA_MODES.join(', ')}.`, { allowed: IMAGE_METADATA_MODES });
    }
    if (input.customDomain === null) await this.deps.customDomains.remove(input.userId);
    else if (input.customDomain !== undefined) await this.deps.customDomains.set(input.userId, input.customDomain);
    if (input.refreshCustomDomain === true && input.customDomain !== null) await this.deps.customDomains.refresh(input.userId);
    if (size !== undefined) {
      await this.deps.users.setMaxUploadSize({ userId: input.userId, maxUploadSizeBytes: size, at: this.deps.clock.now() });
    }
    if (input.imageMetadata !== undefined) {
      await this.deps.users.setImageMetadata({ userId: input.userId, mode: input.imageMetadata, at: this.deps.clock.now() });
    }
    return this.deps.settings.execute({ userId: input.userId });
  }
}
