import type { MediaFacts } from '../../core/media/media-facts.js';
import type { MediaProber, ProbeInput } from '../../core/media/media-prober.js';

/**
 * A {@link MediaProber} made of several: each file goes to the first of `probers` that handles its
 * type (`IsolatedImageProber` or `SharpMediaProber` for images, `IsobmffVideoMediaProber` for MP4 and MOV video, then `MusicMetadataMediaProber` for other audio and video).
 */
export class CompositeMediaProber implements MediaProber {
  constructor(private readonly probers: readonly MediaProber[]) {}

  handles(contentType: string): boolean {
    return this.probers.some((prober) => prober.handles(contentType));
  }

  /** @throws Error when no prober handles the type (callers ask {@link handles} first), or the one that does fails */
  async probe(input: ProbeInput): Promise<MediaFacts> {
    const prober = this.probers.find((candidate) => candidate.handles(input.contentType));
    if (!prober) throw new Error(`No media prober reads ${input.contentType}.`);
    return prober.probe(input);
  }
}
