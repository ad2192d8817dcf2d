import { Readable } from 'node:stream';
import type { MediaFacts } from '../../core/media/media-facts.js';
import type { MediaProber, ProbeInput } from '../../core/media/media-prober.js';

/**
 * A {@link MediaProber} of audio and video on music-metadata (a maintained parser of containers:
 * MP3, WAV, FLAC, Ogg, MP4/M4A/MOV, Matroska/WebM, AIFF, ASF…): the duration in seconds, and the
 * width and height of a video track where the container states them (Matroska and WebM do; MP4
 * through music-metadata does not: MP4 and MOV video go to IsobmffVideoMediaProber first, so here
 * they are M4A audio). Covers are skipped.
 *
 * Memory: the blob is read as a stream (`parseStream`) and the parser keeps only the tokens it is
 * reading; what it passes over (an MP4's `mdat`, a WAV's samples) is read and dropped, never
 * gathered, so a file of any size costs a few buffers. `duration: true` lets it walk the frames
 * of an MP3 without a VBR header (still streaming) to count its length.
 * Types music-metadata does not read (`video/x-msvideo`, …) fail, and are recorded `failed`.
 */
export class MusicMetadataMediaProber implements MediaProber {
  handles(contentType: string): boolean {
    return contentType.startsWith('audio/') || contentType.startsWith('video/');
  }

  /** @throws Error (music-metadata's, or when it recognises no container) when the bytes are not a container it reads, or are cut short */
  async probe(input: ProbeInput): Promise<MediaFacts> {
    const { parseStream } = await import('music-metadata');
    const stream = Readable.from(await input.read(), { objectMode: false });
    try {
      const { format } = await parseStream(stream, { mimeType: input.contentType, size: input.size }, { duration: true, skipCovers: true });
      // Bytes in which music-metadata recognises no container give an empty answer rather than an error.
      if (format.container === undefined && !format.hasAudio && !format.hasVideo) throw new Error(`No ${input.contentType} container recognised.`);
      const video = format.trackInfo.find((track) => track.video?.pixelWidth && track.video.pixelHeight)?.video;
      const duration = format.duration;
      return {
        width: video?.pixelWidth ?? null,
        height: video?.pixelHeight ?? null,
        durationSeconds: duration !== undefined && Number.isFinite(duration) && duration >= 0 ? duration : null,
        thumbhash: null,
      };
    } finally {
      // The parser may stop before the end (it has what it needs): the blob's stream is closed.
      stream.destroy();
    }
  }
}
