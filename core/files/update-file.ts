import type { AccountPolicy } from '../plans/account-policy.js';
import { requireWriteAccess } from '../plans/account-standing.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { checkExpiry } from './file-expiry.js';
import { cleanFileName } from './file-name.js';
import type { FileChanges, FileRepository } from './file-repository.js';
import type { FileAddresses, FileView } from './file-view.js';
import { fileNotFound } from './get-file.js';
import { hasExpired, isFileId } from './stored-file.js';

/** Input of {@link UpdateFile}: the members to change (at least one). */
export interface UpdateFileInput {
  userId: string;
  fileId: string;
  /** New name (control characters removed, trimmed, ≤ 255 characters); null or empty removes it. */
  name?: string | null;
  /** `false` makes the file private: `/m`, `/d` and custom-domain addresses answer 404 from the next request on; `true` gives them back. */
  isPublic?: boolean;
  /** When the file is deleted automatically; must be in the future. Null removes the expiry. */
  expiresAt?: Date | null;
}

/**
 * Changes one of the user's files, `PATCH /files/:id` (docs/private-files.md): its name (the download name
 * of every address), its visibility, its expiry. Every value is checked before anything is
 * written, so a refused request changes nothing; the change is one repository update, seen by
 * every process as a delete is. An expired file (not yet swept) can no longer be changed.
 * @throws DomainError VALIDATION_FAILED (400) with nothing to change; INVALID_FILE_NAME, INVALID_EXPIRY (400);
 *         TRIAL_ENDED (403); FILE_NOT_FOUND (404), also for another account's file
 */
export class UpdateFile {
  constructor(private readonly deps: { files: FileRepository; accounts: AccountPolicy; addresses: FileAddresses; clock: Clock }) {}

  async execute(input: UpdateFileInput): Promise<FileView> {
    const now = this.deps.clock.now();
    const changes: FileChanges = {};
    if (input.name !== undefined) changes.name = cleanFileName(input.name);
    if (input.isPublic !== undefined) changes.isPublic = input.isPublic;
    if (input.expiresAt !== undefined) changes.expiresAt = checkExpiry(input.expiresAt, now);
    if (Object.keys(changes).length === 0) throw new DomainError('VALIDATION_FAILED', 'Give at least one of name, is_public, expires_at.');
    if (!isFileId(input.fileId)) throw fileNotFound();
    requireWriteAccess((await this.deps.accounts.view(input.userId)).standing);
    const current = await this.deps.files.findByFileId(input.fileId);
    if (!current || current.userId !== input.userId || hasExpired(current, now)) throw fileNotFound();
    const updated = await this.deps.files.update({ userId: input.userId, fileId: input.fileId, changes });
    if (!updated) throw fileNotFound();
    // The answer's read counts come from a read (each counted once: FileAddresses.current), not from the update.
    const read = await this.deps.addresses.currentFile(() => this.deps.files.findByFileId(input.fileId));
    const shown = read?.userId === input.userId ? read : undefined;
    const [view] = await this.deps.addresses.views(input.userId, [shown ?? updated]);
    return view;
  }
}
