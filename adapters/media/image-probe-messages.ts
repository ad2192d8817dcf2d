// The messages between IsolatedImageProber and its process (image-probe-process.ts), in a file of
// their own so that the process imports nothing of the prober that starts it.
import type { MediaFacts } from '../../core/media/media-facts.js';

/** One image to probe: its bytes (whole or head), and the limits of the decode. */
export interface ImageProbeRequest {
  id: number;
  bytes: Uint8Array;
  /** True when `bytes` is the whole file. */
  whole: boolean;
  /** Largest image decoded for the thumbhash, in pixels. */
  maxInputPixels: number;
  /** Longest one decode may run, in seconds. */
  timeoutSeconds: number;
}

/** The answer to an {@link ImageProbeRequest} of the same `id`: the facts, or the message of sharp's error. */
export type ImageProbeReply = { id: number; facts: MediaFacts } | { id: number; error: string };
