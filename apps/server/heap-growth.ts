import v8 from 'node:v8';

/**
 * `HEAP_GROWING_PERCENT` when unset: a full garbage collection starts once the old generation has
 * grown to 3 × what the previous one left alive (V8's `--heap-growing-percent`).
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 200;

/**
 * Sets V8's old-generation growing factor for this process to `1 + percent / 100` (V8's
 * `--heap-growing-percent`, read at every full collection, so it applies from the next one on);
 * `percent` 0 changes nothing and leaves V8's own factor.
 *
 * Why: V8 picks the factor from how fast the heap allocates. A server streams a large body with
 * little allocation on its heap (the bytes are Buffers outside it), so after a quiet spell the
 * factor is at its floor and the next limit is the live heap plus a fixed step plus the young
 * generation's size. V8 starts a full collection whenever the room left under that limit is no
 * more than the young generation, and a stream's Buffers trigger young collections all along:
 * each then starts a full one, for as long as the stream lasts. A fixed factor of 3 leaves room
 * above the young generation for a live heap of any size, so a large upload runs none; the heap's
 * limit between collections becomes 3 × the live heap. Measurements: decision 0008
 * (docs/decisions/).
 *
 * @param percent whole percent, 0–400 (`HEAP_GROWING_PERCENT`)
 */
export function applyHeapGrowing(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
