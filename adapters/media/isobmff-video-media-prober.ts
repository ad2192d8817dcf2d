import type { MediaFacts } from '../../core/media/media-facts.js';
import type { MediaProber, ProbeInput } from '../../core/media/media-prober.js';

/** Options of {@link IsobmffVideoMediaProber}. */
export interface IsobmffVideoMediaProberOptions {
  /**
   * Bytes a skipped box may have and still be read through and dropped on the stream already open;
   * a larger one (an `mdat`, a long track's sample table) is jumped over by opening a new byte range
   * after it. Default 64 KiB.
   */
  seekAfterBytes?: number;
  /** Boxes looked at, at most, before the file is given up as malformed (a fragmented file has moov first). Default 10,000. */
  maxBoxes?: number;
}

/** Defaults of {@link IsobmffVideoMediaProberOptions}. */
export const ISOBMFF_VIDEO_DEFAULTS = { seekAfterBytes: 64 * 1024, maxBoxes: 10_000 } as const;

/** Video types stored in ISOBMFF / QuickTime files: MP4, MOV (phones record these), M4V, 3GP. */
const ISOBMFF_VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/x-m4v', 'video/3gpp', 'video/3gpp2']);

/** Top-level box types a file of these types may start with (QuickTime files without `ftyp` start with one of the others). */
const FIRST_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'uuid']);

/** Largest body of a box that is read whole (mvhd, tkhd, hdlr, mehd are ~100 bytes; larger ones are malformed). */
const MAX_LEAF_BYTES = 4 * 1024;

/** One `trak` as far as it is read: its header's size and matrix, and its handler. */
interface Track {
  enabled: boolean;
  width: number;
  height: number;
  quarterTurn: boolean;
  handler?: string;
}

/** What the `moov` box says, as far as it is read. */
interface Movie {
  timescale: number;
  duration?: number;
  fragmentDuration?: number;
  quarterTurn: boolean;
  tracks: Track[];
}

/**
 * A {@link MediaProber} of MP4, MOV, M4V and 3GP video (ISO/IEC 14496-12, the ISO base media file
 * format, and Apple's QuickTime format it grew from), reading only the few boxes that state the
 * facts:
 * - width and height from the first enabled video track's `tkhd` (§8.3.2: the presentation size,
 *   16.16 fixed point, rounded to whole pixels), after its transformation matrix and the movie's
 *   (`mvhd`): a quarter turn (90° or 270°, as phones record portrait video) swaps them. A video
 *   track is one whose `mdia/hdlr` handler is `vide`.
 * - duration in seconds from `mvhd` (§8.2.2: duration / timescale, the longest track); for a
 *   fragmented file whose `mvhd` says 0, from `mvex/mehd` when present, else null.
 * Thumbhash: null (no frame is decoded).
 *
 * Why not music-metadata (the audio/video prober): it reports no video size for MP4, and its
 * duration only for a file with an audio track; and a stream cannot skip, so a file whose `moov`
 * comes after the `mdat` (the usual layout of a phone's recording) is read whole to reach it. Why
 * not mp4box.js: it parses the whole `moov` into memory, sample tables included (hundreds of
 * thousands of sample entries for an hour of video), where three small boxes per track are needed.
 *
 * Memory and reads: boxes are walked by their headers on byte ranges of the blob; a box of at most
 * `seekAfterBytes` that is not needed is read and dropped on the open stream, a larger one (the
 * `mdat`, a long `stbl`) is jumped over by opening a new range after it. Only box bodies of at most
 * 4 KiB are held, so a probe holds a chunk or two of the blob store whatever the file's size, and
 * reads a few KiB plus at most `seekAfterBytes` per box looked at. The walk stops at the end of the
 * top-level `moov`.
 */
export class IsobmffVideoMediaProber implements MediaProber {
  private readonly options: Required<IsobmffVideoMediaProberOptions>;

  constructor(options: IsobmffVideoMediaProberOptions = {}) {
    this.options = { ...ISOBMFF_VIDEO_DEFAULTS, ...options };
  }

  handles(contentType: string): boolean {
    return ISOBMFF_VIDEO_TYPES.has(contentType);
  }

  /** @throws Error when the bytes are not an ISOBMFF/QuickTime file with a `moov` box, or a box is malformed (size past its container, unreadable type, too many boxes) */
  async probe(input: ProbeInput): Promise<MediaFacts> {
    const cursor = new BoxCursor(input, this.options.seekAfterBytes);
    try {
      const movie = await new MovieWalker(cursor, this.options.maxBoxes).walk(input.size);
      return factsOf(movie);
    } finally {
      await cursor.close();
    }
  }
}

/** The facts a walked `moov` states (see {@link IsobmffVideoMediaProber}). */
function factsOf(movie: Movie): MediaFacts {
  const videos = movie.tracks.filter((track) => track.handler === 'vide' && track.width > 0 && track.height > 0);
  const video = videos.find((track) => track.enabled) ?? videos[0];
  let width: number | null = null;
  let height: number | null = null;
  if (video) {
    const sideways = video.quarterTurn !== movie.quarterTurn;
    width = Math.round(sideways ? video.height : video.width);
    height = Math.round(sideways ? video.width : video.height);
    if (width < 1 || height < 1) width = height = null;
  }
  const units = movie.duration || movie.fragmentDuration;
  const durationSeconds = movie.timescale > 0 && units !== undefined && units > 0 ? units / movie.timescale : null;
  return { width, height, durationSeconds, thumbhash: null };
}

/** Walks the box tree down to the boxes that state the facts, keeping what they say. */
class MovieWalker {
  private boxes = 0;
  private readonly movie: Movie = { timescale: 0, quarterTurn: false, tracks: [] };

  constructor(
    private readonly cursor: BoxCursor,
    private readonly maxBoxes: number,
  ) {}

  /** Walks the top-level boxes of a file of `size` bytes up to the end of `moov`. @throws Error when there is no `moov` or a box is malformed */
  async walk(size: number): Promise<Movie> {
    let first = true;
    while (this.cursor.position < size) {
      const box = await this.header(size);
      if (!box) break;
      if (first && !FIRST_BOXES.has(box.type)) throw new Error(`Not an ISOBMFF file: it starts with a box of type ${JSON.stringify(box.type)}.`);
      first = false;
      if (box.type === 'moov') {
        await this.children(box.end, (child) => this.inMovie(child));
        return this.movie;
      }
      await this.cursor.skip(box.end - this.cursor.position);
    }
    throw new Error('No moov box: the file states no movie.');
  }

  private async inMovie(box: BoxHeader): Promise<void> {
    if (box.type === 'mvhd') {
      const body = await this.leaf(box);
      const version = body[0];
      // version 1: 64-bit times and duration (§8.2.2.2).
      const long = version === 1;
      this.movie.timescale = u32(body, long ? 20 : 12);
      // All ones: the duration is not known (§8.2.2.3).
      const unknown = long ? u32(body, 24) === 0xffffffff && u32(body, 28) === 0xffffffff : u32(body, 16) === 0xffffffff;
      this.movie.duration = unknown ? undefined : long ? u64(body, 24) : u32(body, 16);
      this.movie.quarterTurn = quarterTurn(body, long ? 48 : 36);
    } else if (box.type === 'trak') {
      const track: Track = { enabled: false, width: 0, height: 0, quarterTurn: false };
      this.movie.tracks.push(track);
      await this.children(box.end, (child) => this.inTrack(child, track));
    } else if (box.type === 'mvex') {
      await this.children(box.end, async (child) => {
        if (child.type !== 'mehd') return this.cursor.skip(child.end - this.cursor.position);
        const body = await this.leaf(child);
        this.movie.fragmentDuration = body[0] === 1 ? u64(body, 4) : u32(body, 4);
      });
    } else {
      await this.cursor.skip(box.end - this.cursor.position);
    }
  }

  private async inTrack(box: BoxHeader, track: Track): Promise<void> {
    if (box.type === 'tkhd') {
      const body = await this.leaf(box);
      const long = body[0] === 1;
      // Flag 0x000001: track_enabled (§8.3.2.3).
      track.enabled = (body[3] & 1) === 1;
      const matrixAt = long ? 52 : 40;
      track.quarterTurn = quarterTurn(body, matrixAt);
      track.width = u32(body, matrixAt + 36) / 65_536;
      track.height = u32(body, matrixAt + 40) / 65_536;
    } else if (box.type === 'mdia') {
      await this.children(box.end, async (child) => {
        if (child.type !== 'hdlr') return this.cursor.skip(child.end - this.cursor.position);
        // FullBox header, pre_defined (QuickTime: component type), then handler_type (§8.4.3).
        track.handler = ascii((await this.leaf(child)).subarray(8, 12));
      });
    } else {
      await this.cursor.skip(box.end - this.cursor.position);
    }
  }

  /** Visits the boxes from the cursor up to `end` (a container's end); `visit` must leave the cursor at the child's end. */
  private async children(end: number, visit: (box: BoxHeader) => Promise<void>): Promise<void> {
    while (this.cursor.position + 8 <= end) {
      const box = await this.header(end);
      if (!box) throw new Error('A box is cut short.');
      await visit(box);
      if (this.cursor.position !== box.end) throw new Error(`The ${box.type} box is malformed.`);
    }
    if (this.cursor.position < end) await this.cursor.skip(end - this.cursor.position);
  }

  /** The next box's header (size, type), the cursor left at its body; undefined at the end of the bytes. @throws Error when malformed */
  private async header(containerEnd: number): Promise<BoxHeader | undefined> {
    const start = this.cursor.position;
    const head = await this.cursor.read(8);
    if (head.length === 0) return undefined;
    if (head.length < 8) throw new Error('A box header is cut short.');
    if (++this.boxes > this.maxBoxes) throw new Error(`More than ${this.maxBoxes} boxes before the movie's end.`);
    const type = ascii(head.subarray(4, 8));
    if (!/^[\x20-\x7e]{4}$/.test(type)) throw new Error('A box type is not printable: not an ISOBMFF file.');
    let size = u32(head, 0);
    if (size === 1) {
      const large = await this.cursor.read(8);
      if (large.length < 8) throw new Error('A box header is cut short.');
      size = u64(large, 0);
    } else if (size === 0) {
      // A size of 0: the box runs to the end of the file (§4.2), so to its container's end.
      size = containerEnd - start;
    }
    const end = start + size;
    if (end < this.cursor.position || end > containerEnd) throw new Error(`The ${type} box's size (${size}) does not fit its container.`);
    return { type, end };
  }

  /** The body of a small box whole. @throws Error when it is larger than MAX_LEAF_BYTES or cut short */
  private async leaf(box: BoxHeader): Promise<Uint8Array> {
    const length = box.end - this.cursor.position;
    if (length > MAX_LEAF_BYTES) throw new Error(`The ${box.type} box is too large (${length} bytes).`);
    const body = await this.cursor.read(length);
    if (body.length < length || length < 4) throw new Error(`The ${box.type} box is cut short.`);
    const long = body[0] === 1;
    const least: Record<string, number> = { mvhd: long ? 112 : 100, tkhd: long ? 96 : 84, hdlr: 12, mehd: long ? 12 : 8 };
    if (length < (least[box.type] ?? 0)) throw new Error(`The ${box.type} box is cut short.`);
    return body;
  }
}

/** A box as its header states it: type, and the absolute offset just past its end. */
interface BoxHeader {
  type: string;
  end: number;
}

/**
 * A read position in a stored file over {@link ProbeInput.read}: reads go through one open byte
 * range (from the position to the end of the file), skips of at most `seekAfterBytes` past what is
 * buffered are read and dropped, longer ones close it and the next read opens a range further on.
 */
class BoxCursor {
  /** Absolute offset of the next byte {@link read} returns. */
  position = 0;
  private iterator: AsyncIterator<Uint8Array> | undefined;
  /** Bytes received and not yet returned, starting at {@link position}. */
  private pending: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly input: ProbeInput,
    private readonly seekAfterBytes: number,
  ) {}

  /** Up to `length` bytes from the position (fewer only at the end of the file), the position advanced past them. */
  async read(length: number): Promise<Uint8Array> {
    while (this.pending.length < length && (await this.receive())) {
      // Each receive appends a chunk to `pending`; the loop's test does the work.
    }
    const bytes = this.pending.subarray(0, Math.min(length, this.pending.length));
    this.pending = this.pending.subarray(bytes.length);
    this.position += bytes.length;
    return bytes;
  }

  /** Advances the position by `length` bytes (see the class). */
  async skip(length: number): Promise<void> {
    if (length <= 0) return;
    if (length - this.pending.length > this.seekAfterBytes) {
      await this.close();
      this.position += length;
      return;
    }
    let left = length;
    while (left > 0) {
      if (this.pending.length === 0 && !(await this.receive())) break;
      const dropped = Math.min(left, this.pending.length);
      this.pending = this.pending.subarray(dropped);
      this.position += dropped;
      left -= dropped;
    }
    this.position += left;
  }

  /** Closes the open range, if any (the blob store's stream is released). */
  async close(): Promise<void> {
    const iterator = this.iterator;
    this.iterator = undefined;
    this.pending = new Uint8Array(0);
    await iterator?.return?.();
  }

  /** Appends the open range's next chunk to `pending`, opening a range at the position first; false at the end of the file. */
  private async receive(): Promise<boolean> {
    const at = this.position + this.pending.length;
    if (!this.iterator) {
      if (at >= this.input.size) return false;
      this.iterator = (await this.input.read({ start: at, end: this.input.size - 1 }))[Symbol.asyncIterator]();
    }
    const next = await this.iterator.next();
    if (next.done) {
      this.iterator = undefined;
      return false;
    }
    const chunk = next.value;
    if (this.pending.length === 0) {
      this.pending = chunk;
    } else {
      const joined = new Uint8Array(this.pending.length + chunk.length);
      joined.set(this.pending);
      joined.set(chunk, this.pending.length);
      this.pending = joined;
    }
    return true;
  }
}

/** True when the 3 × 3 matrix at `offset` (§6.2.2: a, b, u, c, d, v, x, y, w; a to d 16.16 fixed point) turns a quarter (90° or 270°): |b| > |a|. */
function quarterTurn(body: Uint8Array, offset: number): boolean {
  const a = i32(body, offset);
  const b = i32(body, offset + 4);
  return Math.abs(b) > Math.abs(a);
}

function u32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) >>> 0) + (bytes[offset + 1] << 16) + (bytes[offset + 2] << 8) + bytes[offset + 3];
}

function i32(bytes: Uint8Array, offset: number): number {
  return u32(bytes, offset) | 0;
}

/** A 64-bit big-endian unsigned integer as a number (exact up to 2^53, which any real size or duration is). */
function u64(bytes: Uint8Array, offset: number): number {
  return u32(bytes, offset) * 2 ** 32 + u32(bytes, offset + 4);
}

function ascii(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}
