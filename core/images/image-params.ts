import { DomainError } from '../shared/errors.js';
import type { ImageFit, ImageFormat, ImageTransform } from './image-transformer.js';

/** Largest `w` and `h`, in px. */
export const MAX_IMAGE_SIDE = 4096;

/** The query parameters that ask for a transformation on `/m/:file_id`; any other parameter is ignored. */
export const IMAGE_PARAMETERS = ['w', 'h', 'fit', 'format', 'q'] as const;

/** Values of `fit`. */
export const FITS: readonly ImageFit[] = ['cover', 'contain', 'fill', 'inside', 'outside'];
/** Values of `format`. */
export const REQUESTABLE_FORMATS = ['webp', 'avif', 'jpeg', 'png', 'auto'] as const;
type RequestedFormat = (typeof REQUESTABLE_FORMATS)[number];

/**
 * Source types a transformation can read, with the output format used when `format` is not given
 * (the source's own, or PNG for TIFF). SVG (a document, not pixels), BMP, ICO and HEIC (no
 * decoder in the bundled libvips) are not transformable.
 */
const SOURCE_FORMATS: ReadonlyMap<string, ImageFormat> = new Map([
  ['image/jpeg', 'jpeg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
  ['image/avif', 'avif'],
  ['image/gif', 'gif'],
  ['image/tiff', 'png'],
]);

/**
 * Encoder defaults for lossy formats, so `q` absent and `q` equal to the default share one cached
 * image (they are sharp's own defaults).
 */
const DEFAULT_QUALITY: Readonly<Partial<Record<ImageFormat, number>>> = { jpeg: 80, webp: 80, avif: 50 };

/** The image parameters of a request as checked, before the source is known. */
export interface ImageRequest {
  width?: number;
  height?: number;
  fit?: ImageFit;
  format?: RequestedFormat;
  quality?: number;
}

/** A query as the HTTP edge hands it over: each name with one value, or several when repeated. */
export type QueryValues = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Reads the image parameters of a `/m/:file_id` query (docs/images.md): `w`, `h` (integers
 * 1–4096 px), `fit` (cover, contain, fill, inside, outside), `format` (webp, avif, jpeg, png, auto),
 * `q` (integer 1–100). Other parameters are ignored (cache busters stay harmless).
 * @returns undefined when the query has none of these parameters (the original is served)
 * @throws DomainError INVALID_TRANSFORM (400) for an empty, repeated, unknown or out-of-range value;
 *         `details` is `{ parameter, value, expected }`
 */
export function parseImageRequest(query: QueryValues): ImageRequest | undefined {
  const present = IMAGE_PARAMETERS.filter((name) => query[name] !== undefined);
  if (present.length === 0) return undefined;
  const request: ImageRequest = {};
  for (const name of present) {
    const raw = query[name]!;
    if (typeof raw !== 'string') throw invalid(name, String(raw), 'one value');
    switch (name) {
      case 'w':
        request.width = integerIn(name, raw, 1, MAX_IMAGE_SIDE);
        break;
      case 'h':
        request.height = integerIn(name, raw, 1, MAX_IMAGE_SIDE);
        break;
      case 'q':
        request.quality = integerIn(name, raw, 1, 100);
        break;
      case 'fit':
        if (!(FITS as readonly string[]).includes(raw)) throw invalid(name, raw, FITS.join(', '));
        request.fit = raw as ImageFit;
        break;
      case 'format':
        if (!(REQUESTABLE_FORMATS as readonly string[]).includes(raw)) throw invalid(name, raw, REQUESTABLE_FORMATS.join(', '));
        request.format = raw as RequestedFormat;
        break;
    }
  }
  return request;
}

/**
 * Widths and heights an unsigned request is snapped to (`IMAGE_SIZE_LADDER`, docs/images.md), in px:
 * a few sizes that cover common layouts and screen densities, so that arbitrary `w`/`h` values
 * cannot each create a new stored variant.
 */
export const DEFAULT_SIZE_LADDER: readonly number[] = [16, 32, 64, 128, 256, 320, 480, 640, 768, 1024, 1280, 1536, 1920, 2560, 3840];

/**
 * Checks a size ladder: at least one step, whole numbers 1–{@link MAX_IMAGE_SIDE} px.
 * @returns the steps, ascending and without repeats
 * @throws Error naming the first bad step (a configuration bug)
 */
export function checkSizeLadder(steps: readonly number[]): number[] {
  if (steps.length === 0) throw new Error('The image size ladder needs at least one size.');
  for (const step of steps) {
    if (!Number.isInteger(step) || step < 1 || step > MAX_IMAGE_SIDE)
      throw new Error(`Image size ladder step ${step} is not a whole number from 1 to ${MAX_IMAGE_SIDE}.`);
  }
  return [...new Set(steps)].sort((a, b) => a - b);
}

/**
 * Snaps `width` and `height` up to the next step of `ladder` (ascending, see {@link checkSizeLadder}),
 * or down to its largest step when they are above it; each side on its own, so with both given the
 * box's aspect ratio may change a little (`fit` applies to the snapped box). Other fields are kept.
 */
export function snapToLadder(request: ImageRequest, ladder: readonly number[]): ImageRequest {
  const snap = (side: number | undefined) => (side === undefined ? undefined : (ladder.find((step) => step >= side) ?? ladder[ladder.length - 1]));
  const snapped: ImageRequest = { ...request };
  if (request.width !== undefined) snapped.width = snap(request.width);
  if (request.height !== undefined) snapped.height = snap(request.height);
  return snapped;
}

/** True when a file of this MIME type can be transformed. */
export function isTransformableType(contentType: string): boolean {
  return SOURCE_FORMATS.has(contentType);
}

/**
 * Completes a request for a source of `contentType`: the output format (`auto` negotiated from
 * `accept`: AVIF, then WebP, when listed with a non-zero q; else JPEG for JPEG sources and PNG
 * for the others), the quality (lossy formats only; their default when not given) and the fit
 * (`cover` unless both sides are given, where it makes no difference).
 * @returns the transform and whether it depended on `Accept` (the response then varies on it)
 * @throws DomainError NOT_AN_IMAGE (400) when `contentType` is not transformable
 */
export function normaliseImageRequest(
  request: ImageRequest,
  contentType: string,
  accept: string | undefined,
): { transform: ImageTransform; negotiated: boolean } {
  const source = SOURCE_FORMATS.get(contentType);
  if (source === undefined) {
    throw new DomainError('NOT_AN_IMAGE', `Image parameters apply to JPEG, PNG, WebP, AVIF, GIF and TIFF files; this file is ${contentType}.`, {
      content_type: contentType,
    });
  }
  const negotiated = request.format === 'auto';
  let format: ImageFormat;
  if (request.format === undefined) format = source;
  else if (request.format === 'auto') format = negotiate(accept, source);
  else format = request.format;
  const quality = DEFAULT_QUALITY[format] === undefined ? undefined : (request.quality ?? DEFAULT_QUALITY[format]);
  const bothSides = request.width !== undefined && request.height !== undefined;
  return {
    transform: { width: request.width, height: request.height, fit: bothSides ? (request.fit ?? 'cover') : 'cover', format, quality },
    negotiated,
  };
}

/**
 * A name for one transform made of `[0-9A-Za-z_-]`, e.g. `w320-h320-cover-q80-webp-<version>`:
 * the last segment of the derived image's blob key and part of its ETag.
 */
export function variantName(transform: ImageTransform, version: string): string {
  const quality = transform.quality === undefined ? '' : `-q${transform.quality}`;
  return `w${transform.width ?? 'auto'}-h${transform.height ?? 'auto'}-${transform.fit}${quality}-${transform.format}-${version}`;
}

/** MIME type of an output format. */
export function mimeTypeOf(format: ImageFormat): string {
  return `image/${format}`;
}

function negotiate(accept: string | undefined, source: ImageFormat): ImageFormat {
  const accepted = new Set<string>();
  for (const part of (accept ?? '').toLowerCase().split(',')) {
    const [type, ...parameters] = part.split(';').map((s) => s.trim());
    const q = parameters.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    accepted.add(type);
  }
  if (accepted.has('image/avif')) return 'avif';
  if (accepted.has('image/webp')) return 'webp';
  return source === 'jpeg' ? 'jpeg' : 'png';
}

function integerIn(name: string, raw: string, min: number, max: number): number {
  if (!/^\d{1,5}$/.test(raw)) throw invalid(name, raw, `a whole number from ${min} to ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw invalid(name, raw, `a whole number from ${min} to ${max}`);
  return value;
}

function invalid(parameter: string, value: string, expected: string): DomainError {
  return new DomainError('INVALID_TRANSFORM', `Image parameter ${parameter}=${JSON.stringify(value)} is not valid: expected ${expected}.`, {
    parameter,
    value,
    expected,
  });
}
