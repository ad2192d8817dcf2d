// Thumbnails per second: a 12-megapixel JPEG → 320 px WebP on the view address (docs/images.md).
import http from 'node:http';
import sharp from 'sharp';

/** 4000 × 3000 px: 12 megapixels, a phone photo. */
const WIDTH = 4000;
const HEIGHT = 3000;

/**
 * A 12-megapixel JPEG (quality 85) that compresses like a photo rather than like noise or a flat
 * colour: coarse random noise scaled up (smooth gradients), plus fine grain. About 1–3 MB.
 * @returns Buffer
 */
export async function twelveMegapixelJpeg() {
  const coarse = await sharp({ create: { width: 400, height: 300, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
    .png()
    .toBuffer();
  const grain = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 6 } } })
    .raw()
    .toBuffer();
  const smooth = await sharp(coarse).resize(WIDTH, HEIGHT, { kernel: 'cubic' }).raw().toBuffer();
  for (let i = 0; i < smooth.length; i++) smooth[i] = Math.max(0, Math.min(255, smooth[i] + grain[i] - 128));
  return sharp(smooth, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * Measures thumbnails per second through the public API and the content server: uploads a
 * generated 12-megapixel JPEG with `apiKey`, then asks `/m/<file_id>?w=320&format=webp&q=<q>`:
 * - cold: every request a new variant (a different `q`), so each is computed (a cache miss, one
 *   image operation), 2 at a time (the default IMAGE_CONCURRENCY);
 * - cached: one variant again and again, 8 at a time (read from the blob store, nothing computed).
 * Every answer must be 200 image/webp, else it throws. The account's plan must allow the image
 * operations (IMAGE_OPS_LIMIT unset by default).
 * @param {{ apiBase: string, apiKey: string, quick?: boolean, contentBase?: string }} options
 *        `contentBase` defaults to the origin of the uploaded file's `default_url` (PUBLIC_CONTENT_URL)
 * @returns {Promise<{ coldPerSecond: number, cachedPerSecond: number, sourceBytes: number, thumbnailBytes: number, cold: number, cached: number }>}
 *          thumbnails per second (requests completed ÷ wall-clock seconds), and the sizes in bytes
 */
export async function thumbnails({ apiBase, apiKey, quick = false, contentBase }) {
  const jpeg = await twelveMegapixelJpeg();
  const uploaded = await fetch(new URL('/files', apiBase), {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'image/jpeg', 'x-file-name': 'bench-12mp.jpg' },
    body: jpeg,
  });
  if (uploaded.status !== 201) throw new Error(`upload: expected 201, got ${uploaded.status} ${await uploaded.text()}`);
  const file = (await uploaded.json()).file;
  const base = contentBase ?? new URL(file.default_url).origin;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const thumbnail = (query) => fetchImage(new URL(`/m/${file.file_id}?${query}`, base), agent);

  const coldCount = quick ? 6 : 30;
  const cachedCount = quick ? 100 : 1000;
  // Warm-up: the first transformation loads libvips's codecs; its variant is not reused below.
  await thumbnail('w=320&format=webp&q=100');
  // The variant the cached phase asks for, stored now: a file keeps at most 20 variants
  // (IMAGE_MAX_VARIANTS_PER_FILE), and the cold phase asks for 30 new ones in a full run.
  const bytes = await thumbnail('w=320&format=webp');

  const coldStarted = performance.now();
  await inParallel(coldCount, 2, (i) => thumbnail(`w=320&format=webp&q=${1 + (i % 99)}${i >= 99 ? `&h=${240 + Math.floor(i / 99)}` : ''}`));
  const coldSeconds = (performance.now() - coldStarted) / 1000;

  const cachedStarted = performance.now();
  await inParallel(cachedCount, 8, () => thumbnail('w=320&format=webp'));
  const cachedSeconds = (performance.now() - cachedStarted) / 1000;
  agent.destroy();

  return {
    coldPerSecond: coldCount / coldSeconds,
    cachedPerSecond: cachedCount / cachedSeconds,
    sourceBytes: jpeg.length,
    thumbnailBytes: bytes,
    cold: coldCount,
    cached: cachedCount,
  };
}

/** GET that must answer 200 image/webp. @returns the body's length in bytes */
function fetchImage(url, agent) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      let length = 0;
      const start = [];
      response.on('data', (chunk) => {
        if (length < 512) start.push(chunk);
        length += chunk.length;
      });
      response.on('end', () => {
        if (response.statusCode !== 200 || response.headers['content-type'] !== 'image/webp') {
          const body = Buffer.concat(start).subarray(0, 512).toString('utf8');
          reject(new Error(`${url.pathname}${url.search}: expected 200 image/webp, got ${response.statusCode} ${response.headers['content-type']}: ${body}`));
        } else resolve(length);
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Runs `task(i)` for i in 0…count-1, `concurrency` at a time. */
async function inParallel(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
