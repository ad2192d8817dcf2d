// Media files built in the tests (no fixtures on disk): WAV audio of a chosen length, streamed or whole; MP4/MOV headers.

/** The 44-byte header of a PCM WAV file holding `dataBytes` of samples (RIFF/WAVE, `fmt ` then `data`). */
export function wavHeader(options: { sampleRate: number; channels: number; dataBytes: number }): Buffer {
  const { sampleRate, channels, dataBytes } = options;
  const bitsPerSample = 16;
  const blockAlign = (channels * bitsPerSample) / 8;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** A whole WAV file of `seconds` of silence: 16-bit mono at `sampleRate` Hz. */
export function makeWav(seconds: number, sampleRate = 8_000): Buffer {
  const dataBytes = Math.round(seconds * sampleRate) * 2;
  return Buffer.concat([wavHeader({ sampleRate, channels: 1, dataBytes }), Buffer.alloc(dataBytes)]);
}

/**
 * A WAV file of `totalBytes` produced chunk by chunk (one 64 KiB chunk reused), so a test can hand
 * a large file to a reader without holding it: 16-bit stereo at 44.1 kHz.
 */
export async function* streamedWav(totalBytes: number): AsyncGenerator<Uint8Array> {
  const dataBytes = totalBytes - 44;
  yield wavHeader({ sampleRate: 44_100, channels: 2, dataBytes });
  const chunk = new Uint8Array(64 * 1024);
  for (let sent = 0; sent < dataBytes; sent += chunk.length) yield chunk.subarray(0, Math.min(chunk.length, dataBytes - sent));
}

/** An ISOBMFF box (ISO/IEC 14496-12 §4.2): 32-bit size, type, body; `large` writes the size as 64-bit (size field 1). */
export function isoBox(type: string, body: Uint8Array[] = [], large = false): Buffer {
  const length = body.reduce((sum, part) => sum + part.length, 0);
  const header = Buffer.alloc(large ? 16 : 8);
  header.writeUInt32BE(large ? 1 : 8 + length, 0);
  header.write(type, 4, 'latin1');
  if (large) header.writeBigUInt64BE(BigInt(16 + length), 8);
  return Buffer.concat([header, ...body]);
}

/** A FullBox's version and flags followed by `fields` (§4.2). */
function fullBody(version: number, flags: number, ...fields: Buffer[]): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff), 0);
  return Buffer.concat([head, ...fields]);
}

/** The 36-byte transformation matrix of `rotation` degrees clockwise (§6.2.2: a, b, u, c, d, v, x, y, w). */
function matrix(rotation: 0 | 90 | 180 | 270): Buffer {
  const one = 0x10000;
  const [a, b, c, d] = { 0: [one, 0, 0, one], 90: [0, one, -one, 0], 180: [-one, 0, 0, -one], 270: [0, -one, one, 0] }[rotation];
  const bytes = Buffer.alloc(36);
  [a, b, 0, c, d, 0, 0, 0, 0x40000000].forEach((value, index) => bytes.writeInt32BE(value, index * 4));
  return bytes;
}

function u32s(...values: number[]): Buffer {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => bytes.writeUInt32BE(value, index * 4));
  return bytes;
}

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

/** Options of {@link makeMp4}. */
export interface Mp4Options {
  /** Presentation size of the video track in pixels (tkhd); no video track when absent. */
  video?: { width: number; height: number; rotation?: 0 | 90 | 180 | 270 };
  /** Adds an audio track (handler `soun`, tkhd size 0). */
  audio?: boolean;
  /** Movie duration in mvhd: `units` of `timescale` per second. */
  duration: { units: number; timescale: number };
  /** Bytes of the `mdat` (zeros). */
  mdatBytes?: number;
  /** `moov` after the `mdat`, as a camera writes it (not "fast start"); default false. */
  moovLast?: boolean;
  /** Version 1 boxes (64-bit times), and a 64-bit size on the `mdat`. */
  long?: boolean;
  /** The brand in `ftyp`: `isom` (MP4, default) or `qt  ` (a QuickTime .mov, whose hdlr has component type `mhlr`). */
  brand?: 'isom' | 'qt  ';
  /** Bytes of a sample table inside each track's `minf` (zeros in a `free` box), to make the moov large. */
  sampleTableBytes?: number;
}

/**
 * An MP4 (or MOV) file made by hand: `ftyp`, `moov` (mvhd; per track tkhd, mdia with mdhd, hdlr,
 * minf) and `mdat`, in either order. Enough structure for a reader of the headers; no playable samples.
 */
export function makeMp4(options: Mp4Options): Buffer {
  const long = options.long ?? false;
  const version = long ? 1 : 0;
  const brand = options.brand ?? 'isom';
  const { units, timescale } = options.duration;
  const mvhd = isoBox('mvhd', [
    fullBody(
      version,
      0,
      long ? Buffer.concat([u64(0), u64(0), u32s(timescale), u64(units)]) : u32s(0, 0, timescale, units),
      u32s(0x10000), // rate 1.0
      Buffer.from([1, 0, 0, 0]), // volume 1.0, reserved
      Buffer.alloc(8), // reserved
      matrix(0),
      Buffer.alloc(24), // pre_defined
      u32s(3), // next_track_ID
    ),
  ]);
  const track = (id: number, handler: 'vide' | 'soun', size: { width: number; height: number }, rotation: 0 | 90 | 180 | 270) => {
    const tkhd = isoBox('tkhd', [
      fullBody(
        version,
        3, // enabled, in movie
        long ? Buffer.concat([u64(0), u64(0), u32s(id, 0), u64(units)]) : u32s(0, 0, id, 0, units),
        Buffer.alloc(8), // reserved
        Buffer.from([0, 0, 0, 0, handler === 'soun' ? 1 : 0, 0, 0, 0]), // layer, alternate_group, volume, reserved
        matrix(rotation),
        u32s(size.width * 0x10000, size.height * 0x10000),
      ),
    ]);
    const mdhd = isoBox('mdhd', [fullBody(0, 0, u32s(0, 0, timescale, units), Buffer.from([0x55, 0xc4, 0, 0]))]);
    const hdlr = isoBox('hdlr', [
      fullBody(
        0,
        0,
        Buffer.from(brand === 'qt  ' ? 'mhlr' : '\0\0\0\0', 'latin1'),
        Buffer.from(handler, 'latin1'),
        Buffer.alloc(12),
        Buffer.from('handler\0', 'latin1'),
      ),
    ]);
    const minf = isoBox('minf', [isoBox('free', [Buffer.alloc(options.sampleTableBytes ?? 16)])]);
    return isoBox('trak', [tkhd, isoBox('mdia', [mdhd, hdlr, minf])]);
  };
  const traks: Buffer[] = [];
  if (options.audio) traks.push(track(1, 'soun', { width: 0, height: 0 }, 0));
  if (options.video) traks.push(track(2, 'vide', options.video, options.video.rotation ?? 0));
  const moov = isoBox('moov', [mvhd, ...traks, isoBox('udta', [Buffer.alloc(32)])]);
  const ftyp = isoBox('ftyp', [Buffer.from(brand, 'latin1'), u32s(0x200), Buffer.from(brand === 'qt  ' ? 'qt  ' : 'isomiso2avc1mp41', 'latin1')]);
  const mdat = isoBox('mdat', [Buffer.alloc(options.mdatBytes ?? 64)], long);
  return Buffer.concat(options.moovLast ? [ftyp, isoBox('wide'), mdat, moov] : [ftyp, moov, mdat]);
}
