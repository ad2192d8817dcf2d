/**
 * Port: each account's signing key for signed URLs (docs/private-files.md), an opaque secret made by
 * {@link UrlSigner.newKey}. Kept with the account, so that `FileRepository.findWithSigningKey`
 * reads it with the file in one lookup; replacing it revokes every URL signed with the old one.
 */
export interface SigningKeyRepository {
  /**
   * The account's key; when it has none yet, `candidate` is stored and returned. Atomic: of
   * concurrent first calls one candidate wins and all of them return it.
   * @returns the key, or undefined when there is no such account
   */
  ensure(options: { userId: string; candidate: string }): Promise<string | undefined>;
  /** Replaces the account's key with `key`. @returns false when there is no such account */
  replace(options: { userId: string; key: string }): Promise<boolean>;
}
