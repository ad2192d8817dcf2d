// The first bytes of real files of each type the bench uploads. The service checks a declared
// Content-Type against the body's magic bytes (issue 9), so bench bodies start with a real header
// and continue with filler; the service does no more work for them than for real files.
/** Hex of a file header per content type: PNG signature, IHDR and the start of an IDAT chunk, JPEG SOI + APP0, an MP4 `ftyp` box (isom). */
export const MAGIC_HEX = {
  'image/png': '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000100049444154', // signature, IHDR (1×1), IDAT
  'image/jpeg': 'ffd8ffe000104a46494600',
  'video/mp4': '000000186674797069736f6d0000020069736f6d69736f32',
};

/** `body` with its first bytes replaced by the header of `contentType` (a new Buffer; same length). */
export function withMagic(body, contentType) {
  const header = Buffer.from(MAGIC_HEX[contentType] ?? '', 'hex');
  const out = Buffer.from(body);
  header.copy(out, 0, 0, Math.min(header.length, out.length));
  return out;
}
