/** Port: unpredictable identifiers and secrets from a cryptographically secure source. */
export interface IdGenerator {
  /**
   * A UUID (RFC 9562), lower-case, with at least 74 unpredictable bits. Record ids: an adapter may
   * make them time-ordered (version 7) so that database indexes keyed by them stay compact.
   */
  uuid(): string;
  /** `length` characters drawn uniformly from [0-9A-Za-z] (base62), for file ids and secrets. */
  base62(length: number): string;
}
