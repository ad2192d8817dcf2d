import { DomainError } from '../shared/errors.js';
import { mediaTypeOf } from './content-types.js';

/**
 * Port: recognises a file's type from its first bytes (its signature, "magic bytes").
 * Adapter: `adapters/content/file-type-content-sniffer.ts` (the `file-type` package).
 */
export interface ContentSniffer {
  /** How many leading bytes {@link sniff} wants to see; fewer when the file is shorter. */
  readonly headBytes: number;
  /**
   * True when this sniffer recognises `mediaType` (lower-case, no parameters) by signature, so a
   * file declared with it must carry that signature. False for types without one (text, JSON, SVG).
   */
  canDetect(mediaType: string): boolean;
  /** The media type (lower-case, no parameters) the signature in `head` says, or undefined when none is recognised. Never throws. */
  sniff(head: Uint8Array): Promise<string | undefined>;
}

/**
 * Media types that name one container format under several names, or formats that one signature
 * cannot tell apart (ISO BMFF brands, Matroska doctypes, Ogg codecs). A declared type agrees with a
 * detected one in the same group: a QuickTime file labelled `video/mp4` is the same bytes a
 * browser plays either way, and none of these types is active content.
 */
const SAME_SIGNATURE: readonly (readonly string[])[] = [
  ['video/mp4', 'video/quicktime', 'video/x-m4v', 'audio/mp4', 'audio/x-m4a', 'video/3gpp', 'video/3gpp2'],
  ['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence'],
  ['video/webm', 'audio/webm', 'video/x-matroska', 'video/matroska', 'audio/x-matroska'],
  ['video/ogg', 'audio/ogg', 'application/ogg', 'audio/opus'],
  ['audio/wav', 'audio/wave', 'audio/x-wav', 'audio/vnd.wave'],
  ['audio/flac', 'audio/x-flac'],
  ['audio/aac', 'audio/x-aac'],
  ['audio/mpeg', 'audio/mp3'],
  ['image/x-icon', 'image/vnd.microsoft.icon'],
  ['image/png', 'image/apng'],
  ['image/bmp', 'image/x-bmp', 'image/x-ms-bmp'],
  [
    'application/zip',
    'application/epub+zip',
    'application/java-archive',
    'application/vnd.android.package-archive',
    'application/x-xpinstall',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    'application/vnd.oasis.opendocument.text',
    'application/vnd.oasis.opendocument.spreadsheet',
    'application/vnd.oasis.opendocument.presentation',
  ],
];
const GROUP_OF = new Map<string, readonly string[]>(SAME_SIGNATURE.flatMap((group) => group.map((type) => [type, group] as const)));

/** The types sharing `mediaType`'s signature, itself included. */
function sameSignature(mediaType: string): readonly string[] {
  return GROUP_OF.get(mediaType) ?? [mediaType];
}

/**
 * Checks a declared upload type against the file's leading bytes (OWASP ASVS 12.2.1, "files
 * obtained from untrusted sources are validated to be of expected type based on the file's
 * content"). A type that has a signature (images, audio, video, PDF, ZIP) must be confirmed by it;
 * types without one (text, JSON, SVG…) are accepted as declared, and the content server serves
 * them with `nosniff`, and sandboxed when active. An empty head is not judged (the upload then
 * answers EMPTY_FILE).
 * @param declared the normalised declared media type
 * @throws DomainError CONTENT_TYPE_MISMATCH (400) with `details: { declared, detected }` (`detected` null when no signature was recognised)
 */
export async function checkDeclaredContentType(sniffer: ContentSniffer, declared: string, head: Uint8Array): Promise<void> {
  const family = sameSignature(declared);
  if (head.byteLength === 0 || !family.some((type) => sniffer.canDetect(type))) return;
  const sniffed = await sniffer.sniff(head);
  const detected = sniffed === undefined ? undefined : mediaTypeOf(sniffed);
  if (detected !== undefined && family.includes(detected)) return;
  throw new DomainError(
    'CONTENT_TYPE_MISMATCH',
    `The file's content is ${detected === undefined ? 'not recognisable as' : `${detected}, not`} ${declared} as its Content-Type says.`,
    { declared, detected: detected ?? null },
  );
}

/**
 * Reads the first `bytes` bytes of `body` without consuming the rest: resolves with those bytes
 * (fewer when the body is shorter) and a body that yields everything, the peeked bytes first, so
 * nothing is buffered beyond one chunk past `bytes`.
 * @throws whatever reading `body` throws (a dropped connection)
 */
export async function peekHead(body: AsyncIterable<Uint8Array>, bytes: number): Promise<{ head: Uint8Array; body: AsyncIterable<Uint8Array> }> {
  const iterator = body[Symbol.asyncIterator]();
  const peeked: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    if (next.value.byteLength === 0) continue;
    peeked.push(next.value);
    length += next.value.byteLength;
  }
  const head = new Uint8Array(Math.min(length, bytes));
  let at = 0;
  for (const chunk of peeked) {
    if (at >= head.byteLength) break;
    const part = chunk.subarray(0, head.byteLength - at);
    head.set(part, at);
    at += part.byteLength;
  }
  async function* rest(): AsyncIterable<Uint8Array> {
    try {
      yield* peeked.splice(0);
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      if (!done) await iterator.return?.();
    }
  }
  return { head, body: rest() };
}
