import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/** A real, valid PNG of `width`×`height` pixels (RGB, a gradient), built with the standard library. */
export function makePng(width = 16, height = 16): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = y * (width * 3 + 1) + 1 + x * 3;
      raw[o] = (x * 255) / width;
      raw[o + 1] = (y * 255) / height;
      raw[o + 2] = 128;
    }
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A minimal valid one-page PDF. */
export function makePdf(text = 'Hangar'): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${`BT /F1 18 Tf 20 50 Td (${text}) Tj ET`.length} >>\nstream\nBT /F1 18 Tf 20 50 Td (${text}) Tj ET\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** `size` pseudo-random bytes (deterministic from `seed`). */
export function randomBytesOf(size: number, seed = 1): Uint8Array {
  const out = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** SHA-256 hex of `bytes`. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The shortest leading bytes `file-type` recognises as each type (PNG: signature, IHDR chunk and
 * the header of an IDAT chunk; MP4: an `ftyp` box of brand isom; …). Uploads of these types must
 * start with them (CONTENT_TYPE_MISMATCH otherwise).
 */
const SIGNATURES: Record<string, Uint8Array> = {
  'image/png': Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    Buffer.from('IHDR', 'latin1'),
    Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde, 0, 0, 0, 0]),
    Buffer.from('IDAT', 'latin1'),
  ]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  'image/gif': Buffer.from('GIF89a', 'latin1'),
  'application/pdf': Buffer.from('%PDF-1.4\n', 'latin1'),
  'video/mp4': Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2', 'latin1')]),
  'application/zip': Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x61]),
};

/** A PNG shorter than the full signature above: signature and IHDR chunk header only (a file that ends inside IHDR is still PNG to file-type). */
const SHORT_PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

/** Length of the smallest file {@link withSignature} can make of `contentType` (0: any size, no signature needed). */
export function signatureLength(contentType: string): number {
  return contentType === 'image/png' ? SHORT_PNG.byteLength : (SIGNATURES[contentType]?.byteLength ?? 0);
}

/**
 * `bytes` with their start overwritten by `contentType`'s signature (same length, so sizes in
 * quota tests stay exact); unchanged for types without one.
 * @throws Error when `bytes` is shorter than the signature
 */
export function withSignature(contentType: string, bytes: Uint8Array): Uint8Array {
  let signature = SIGNATURES[contentType];
  if (!signature) return bytes;
  if (contentType === 'image/png' && bytes.byteLength < signature.byteLength && bytes.byteLength >= SHORT_PNG.byteLength) signature = SHORT_PNG;
  if (bytes.byteLength < signature.byteLength) throw new Error(`${contentType} needs at least ${signature.byteLength} bytes, not ${bytes.byteLength}`);
  const out = Buffer.from(bytes);
  out.set(signature, 0);
  return out;
}

/** `size` pseudo-random bytes (see {@link randomBytesOf}) that start with `contentType`'s signature (default PNG). */
export function randomFileOf(size: number, contentType = 'image/png', seed = 1): Uint8Array {
  return withSignature(contentType, randomBytesOf(size, seed));
}
