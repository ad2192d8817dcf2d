import type { ImageRequest } from '../images/image-params.js';

/** Longest lifetime of a signed URL, in seconds: 7 days (as Supabase's and S3's presigned URLs). */
export const SIGNED_URL_MAX_SECONDS = 604_800;

/** What a signed URL grants besides the file itself (docs/private-files.md, "Signed URLs"). */
export interface SignedUrlGrant {
  /** Public file id. */
  fileId: string;
  /** Unix time in seconds after which the URL answers SIGNED_URL_EXPIRED. */
  expires: number;
  /** `Content-Disposition: attachment` instead of inline. */
  download: boolean;
  /** An image transformation, applied at exactly this size (no size ladder). */
  transform?: ImageRequest;
  /**
   * The API key that made the URL (query `kid`), when one did: the URL works only while that key
   * does (not revoked, not expired). Absent: made with a session; it outlives the session.
   */
  apiKeyId?: string;
}

/**
 * The text a signed URL's HMAC covers: a version tag, then every granted member in a fixed order,
 * one per line (absent members empty), so that no two grants share a payload and changing any of
 * them (file, expiry, disposition, any transform parameter, the minting key) invalidates the
 * signature. A grant with an API key is tagged `v2` and ends with the key's id: removing `kid` from
 * such a URL leaves a `v1` payload its signature does not match.
 */
export function signedUrlPayload(grant: SignedUrlGrant): string {
  const t = grant.transform ?? {};
  const members = [
    grant.fileId,
    String(grant.expires),
    grant.download ? '1' : '0',
    t.width ?? '',
    t.height ?? '',
    t.fit ?? '',
    t.format ?? '',
    t.quality ?? '',
  ];
  if (grant.apiKeyId === undefined) return ['hangar-signed-url-v1', ...members].join('\n');
  return ['hangar-signed-url-v2', ...members, grant.apiKeyId].join('\n');
}

/** The query of a signed URL for `grant` with its `signature` (parameter names as on `/m`: `w`, `h`, `fit`, `format`, `q`; `kid`: the minting API key's id). */
export function signedUrlQuery(grant: SignedUrlGrant, signature: string): string {
  const t = grant.transform;
  const pairs: [string, string | number | undefined][] = [
    ['expires', grant.expires],
    ['download', grant.download ? 1 : undefined],
    ['w', t?.width],
    ['h', t?.height],
    ['fit', t?.fit],
    ['format', t?.format],
    ['q', t?.quality],
    ['kid', grant.apiKeyId],
    ['signature', signature],
  ];
  return pairs.flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${encodeURIComponent(String(value))}`])).join('&');
}
