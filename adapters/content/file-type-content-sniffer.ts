import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import type { ContentSniffer } from '../../core/files/content-sniffer.js';

/**
 * Types `file-type` lists but recognises only from text that may legitimately be absent (an XML
 * declaration, a `BEGIN:VCALENDAR` line): a file declared with one of them is accepted as declared,
 * like other text, rather than refused for lacking a signature text formats do not require.
 */
const TEXT_FORMATS = new Set(['application/xml', 'text/xml', 'text/calendar', 'text/vcard', 'text/vtt', 'image/svg+xml']);

/**
 * {@link ContentSniffer} with the `file-type` package (signatures of about 170 binary formats:
 * images, audio, video, PDF, archives, executables…). Looks at the first 4100 bytes, the sample
 * size `file-type` documents as enough for every format it detects from a buffer.
 */
export class FileTypeContentSniffer implements ContentSniffer {
  readonly headBytes = 4100;
  private readonly detectable: ReadonlySet<string>;

  constructor() {
    this.detectable = new Set([...supportedMimeTypes].map((type) => type.toLowerCase()).filter((type) => !TEXT_FORMATS.has(type) && !type.startsWith('text/')));
  }

  /** True for the binary formats `file-type` recognises (not text, XML or SVG). */
  canDetect(mediaType: string): boolean {
    return this.detectable.has(mediaType.toLowerCase());
  }

  /** @returns `file-type`'s MIME type for `head` (lower-case, parameters dropped), or undefined; never throws */
  async sniff(head: Uint8Array): Promise<string | undefined> {
    try {
      const result = await fileTypeFromBuffer(head);
      return result?.mime.split(';')[0].trim().toLowerCase();
    } catch {
      return undefined;
    }
  }
}
