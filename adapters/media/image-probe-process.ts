// The image probe process (IsolatedImageProber starts it with child_process.fork): decodes uploaded
// images with sharp (libvips) for their media facts, apart from the server's process. It answers
// one request at a time, and ends when the server's process ends or lets it go (the IPC channel closes).
import type { ImageProbeReply, ImageProbeRequest } from './image-probe-messages.js';
import { probeImageBytes } from './sharp-media-prober.js';

process.on('message', (request: ImageProbeRequest) => {
  probeImageBytes(request, request).then(
    (facts) => send({ id: request.id, facts }),
    (error: unknown) => send({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));

/** Sends `reply`; nothing when the channel has closed meanwhile (the prober has gone). */
function send(reply: ImageProbeReply): void {
  if (process.connected) process.send?.(reply);
}
