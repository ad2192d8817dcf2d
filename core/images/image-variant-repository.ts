/** The outcome of {@link ImageVariantRepository.claim}. */
export type VariantClaim =
  /** The caller holds the claim: it computes the variant, then calls `markStored` or `release`. */
  | 'claimed'
  /** The variant is stored: read it from the blob store. */
  | 'stored'
  /** Another caller (in this process or another) holds a live claim: wait and ask again. */
  | 'busy'
  /** The file already has `maxPerFile` variants stored or claimed: compute without storing. */
  | 'full'
  /** The file no longer exists. */
  | 'gone';

/** The outcome of {@link ImageVariantRepository.markStored}. */
export type VariantStored =
  /** Recorded, and its bytes added to the owner's `storage_bytes`. */
  | 'stored'
  /** Its bytes would take the owner past `storageLimitBytes`: nothing recorded, the claim dropped. */
  | 'storage_limit_reached'
  /** The claim is no longer the caller's: the file was deleted, or the claim expired and was taken over. */
  | 'lost';

/** One variant row, as {@link ImageVariantRepository.list} shows it. */
export interface ImageVariantRecord {
  variant: string;
  state: 'computing' | 'stored';
  /** Bytes of the stored variant (0 while computing). */
  sizeBytes: number;
}

/** Which variant of which file: the file's record id (`StoredFile.id`), its owner, and the variant name (`variantName`). */
export interface VariantKey {
  fileRecordId: string;
  userId: string;
  variant: string;
}

/**
 * Port: the derived images (variants) of each file, shared by every process on one database
 * (docs/images.md, "Several processes"). A row per (file, variant) is the claim that makes one
 * caller, in one process, compute a new variant and count it once in `image_ops`; the stored
 * variants' bytes count in the owner's `storage_bytes` (`FileRepository.totals`) and are
 * subtracted, rows removed, when the file is deleted (`FileRepository.deleteMany`).
 * Claims carry a lease: a claim whose holder died expires and may be claimed again.
 */
export interface ImageVariantRepository {
  /**
   * Claims `variant` of the file for `token` until `now + leaseMs`, atomically across processes:
   * - `stored` when it is stored; `busy` when another token holds an unexpired claim;
   * - a new variant, or one whose claim expired (taken over), is claimed only while the file has
   *   fewer than `maxPerFile` variants stored or under an unexpired claim (else `full`, and an
   *   expired claim is dropped); `gone` when the file does not exist.
   * @param options.now the current time (the lease's start); `leaseMs` in ms (> 0); `maxPerFile` ≥ 0
   */
  claim(options: VariantKey & { token: string; now: Date; leaseMs: number; maxPerFile: number }): Promise<VariantClaim>;
  /**
   * Records the claimed variant as stored, `sizeBytes` bytes, and adds them to the owner's
   * `storage_bytes` in the same transaction, only while that stays within `storageLimitBytes`
   * (otherwise the claim is dropped: `storage_limit_reached`). `lost` when `token` no longer holds
   * the claim (nothing changes then).
   */
  markStored(options: VariantKey & { token: string; sizeBytes: number; storageLimitBytes: number }): Promise<VariantStored>;
  /** Drops `token`'s claim (a failed computation), so that the next request claims it anew; nothing when it does not hold it. */
  release(options: VariantKey & { token: string }): Promise<void>;
  /** Removes a stored variant's row and subtracts its bytes from the owner's `storage_bytes` (its blob was lost). Nothing when absent. */
  forget(options: VariantKey): Promise<void>;
  /** The file's variant rows, by variant name (tests, diagnostics). */
  list(options: { fileRecordId: string }): Promise<ImageVariantRecord[]>;
}
