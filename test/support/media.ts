// Media files built in the tests (no fixtures on disk): WAV audio of a chosen length, streamed or whole.

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
