import type { AccountTotals } from './file-repository.js';

/** How long (ms) what this process learned of an account's totals lets its uploads skip the pre-body read. */
export const KNOWN_TOTALS_MAX_AGE_MS = 10_000;

/** Accounts whose totals one process keeps at most (the oldest learned is forgotten first). */
export const KNOWN_TOTALS_CAPACITY = 10_000;

/**
 * What one process last learned of accounts' totals (files, bytes and reservations), so that an
 * upload to an account with plenty of room needs no read before its body (UploadFile): on a database
 * across the network that read is a round trip and a statement per upload.
 *
 * Never an authority: the insert checks the plan's limits atomically (FileRepository.insert). It is
 * used only to say "plenty of room", where a stale answer in either direction decides as a fresh read
 * would, or is caught by the insert:
 * - other processes added files (the totals here are too low): an upload the fresh read would have
 *   refused early streams its body and is refused by the insert with the same code, storing nothing;
 *   the refusal forgets the account, so the next upload reads afresh and is refused before its body;
 * - files were removed (the totals here are too high): {@link roomy} answers undefined sooner, and
 *   the upload reads afresh.
 * Entries live {@link KNOWN_TOTALS_MAX_AGE_MS} and at most {@link KNOWN_TOTALS_CAPACITY} accounts are
 * kept, so memory is bounded and no process goes long on another's uploads.
 */
export class KnownTotals {
  private readonly known = new Map<string, { totals: AccountTotals; learnedAtMs: number }>();

  constructor(private readonly options: { maxAgeMs?: number; capacity?: number } = {}) {}

  /**
   * The account's totals as last learned, when they were learned within the max age and leave room
   * for one more file and for a whole upload of `uploadLimitBytes` (so the storage left never cuts
   * the body shorter than the upload limit does); else undefined (read the totals afresh).
   * @param limits the plan's limits (bytes and files); `nowMs` epoch ms
   */
  roomy(userId: string, limits: { storageLimitBytes: number; fileCountLimit: number }, uploadLimitBytes: number, nowMs: number): AccountTotals | undefined {
    const entry = this.known.get(userId);
    if (!entry) return undefined;
    if (nowMs - entry.learnedAtMs > (this.options.maxAgeMs ?? KNOWN_TOTALS_MAX_AGE_MS) || nowMs < entry.learnedAtMs) {
      this.known.delete(userId);
      return undefined;
    }
    const { totals } = entry;
    const filesLeft = limits.fileCountLimit - totals.filesCount - (totals.reservedFiles ?? 0);
    const bytesLeft = limits.storageLimitBytes - totals.storageBytes - (totals.reservedBytes ?? 0);
    return filesLeft >= 1 && bytesLeft >= uploadLimitBytes ? totals : undefined;
  }

  /** Keeps totals just read from the repository (`nowMs` epoch ms), replacing what was known. */
  learned(userId: string, totals: AccountTotals, nowMs: number): void {
    this.known.delete(userId);
    this.known.set(userId, { totals: { ...totals }, learnedAtMs: nowMs });
    if (this.known.size > (this.options.capacity ?? KNOWN_TOTALS_CAPACITY)) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  /** Counts a file of `size` bytes this process just stored for the account (keeps the learning time). */
  added(userId: string, size: number): void {
    const entry = this.known.get(userId);
    if (!entry) return;
    entry.totals = { ...entry.totals, filesCount: entry.totals.filesCount + 1, storageBytes: entry.totals.storageBytes + size };
  }

  /** Forgets the account: its next upload reads the totals afresh (after the insert refused one). */
  forget(userId: string): void {
    this.known.delete(userId);
  }
}
