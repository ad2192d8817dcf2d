import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MediaFacts } from '../../core/media/media-facts.js';
import type { MediaProber, ProbeInput } from '../../core/media/media-prober.js';
import type { ImageProbeReply, ImageProbeRequest } from './image-probe-messages.js';
import { type ImageBytes, isProbedImageType, readImageBytes, SHARP_MEDIA_DEFAULTS, type SharpMediaProberOptions } from './sharp-media-prober.js';

/** Options of {@link IsolatedImageProber}: those of SharpMediaProber, and how long its process may stay idle. */
export interface IsolatedImageProberOptions extends SharpMediaProberOptions {
  /** The probe process ends after this long without a probe, in ms (default {@link IMAGE_PROBE_PROCESS_IDLE_MS}); the next probe starts another. */
  idleMs?: number;
  /** The module the process runs (default `image-probe-process.js` beside this one); tests pass one that fails on purpose. */
  script?: URL;
}

/**
 * Default of {@link IsolatedImageProberOptions.idleMs}: long enough that a stream of uploads keeps
 * one process (starting one and its first probe cost about 250 ms of CPU on the 2-core machine, a
 * probe in a running one about what it costs in the server's process: 6–8 ms for an 800 × 600 PNG),
 * short enough that a service idle for a few seconds more holds no libvips.
 */
export const IMAGE_PROBE_PROCESS_IDLE_MS = 10_000;

/** Time a probe may take beyond its decode's own timeout (the process starting, the bytes crossing), in ms. */
const PROBE_MARGIN_MS = 10_000;

/**
 * A {@link MediaProber} of images that runs sharp (libvips) in a process of its own
 * (`image-probe-process.ts`, started with `child_process.fork` on the first image and ended after
 * {@link IMAGE_PROBE_PROCESS_IDLE_MS} without one). The facts are those of SharpMediaProber, read
 * the same way: the bytes are read here ({@link readImageBytes}: whole up to `maxInputBytes`, else
 * the head) and sent to the process, which decodes them.
 *
 * Why a process: the images are uploads, untrusted, and libvips decodes a dozen formats in native
 * code. A crash or a runaway decode there ends the probe process, not the server's worker with
 * every request in flight: that one probe fails (the file's facts are recorded `failed`), and the
 * next image starts a new process. And a worker that has only probed images holds no libvips
 * (about 12 MiB resident) once the process has ended (decision 0023; the image transformer of
 * `/m?w=` still loads sharp in the worker, where a request waits on it).
 *
 * Probes run one at a time, in the order asked: a failure then belongs to the image that caused
 * it. The media probe queue (MEDIA_PROBE_CONCURRENCY) bounds how many wait here, each holding its
 * bytes. A probe that outlasts its decode timeout by {@link PROBE_MARGIN_MS} ends the process.
 */
export class IsolatedImageProber implements MediaProber {
  private readonly options: Required<IsolatedImageProberOptions>;
  private process: ProbeProcess | undefined;
  /** The probe running or last run: each probe starts once the one before it has ended. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(options: IsolatedImageProberOptions = {}) {
    this.options = { ...SHARP_MEDIA_DEFAULTS, idleMs: IMAGE_PROBE_PROCESS_IDLE_MS, script: new URL('./image-probe-process.js', import.meta.url), ...options };
  }

  handles(contentType: string): boolean {
    return isProbedImageType(contentType);
  }

  /**
   * @throws Error when the bytes are not an image libvips reads (sharp's message), or the probe
   *   process ended or timed out while probing them
   * @throws DomainError BLOB_STORE_UNAVAILABLE when the bytes cannot be read
   */
  async probe(input: ProbeInput): Promise<MediaFacts> {
    const image = await readImageBytes(input, this.options);
    const run = this.tail.then(() => this.processNow().probe(image, this.options));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The probe process's id while it runs (tests). */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Ends the probe process now, if one runs; a probe in flight fails. Resolves once it has exited. */
  async close(): Promise<void> {
    await this.process?.end();
  }

  private processNow(): ProbeProcess {
    if (this.process === undefined || this.process.ended) {
      const started: ProbeProcess = new ProbeProcess(this.options.script, this.options.idleMs, () => {
        if (this.process === started) this.process = undefined;
      });
      this.process = started;
    }
    return this.process;
  }
}

/** One probe process: one request at a time, ended after `idleMs` without one. */
class ProbeProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private waiting: { id: number; resolve: (facts: MediaFacts) => void; reject: (error: Error) => void; timer: NodeJS.Timeout } | undefined;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  /** True once the process is ending (let go when idle, killed, or exited): it takes no more probes. */
  ended = false;

  constructor(
    script: URL,
    private readonly idleMs: number,
    private readonly onEnd: () => void,
  ) {
    // Plain Node: none of this process's flags (an inspector port, for one) are passed on.
    this.child = fork(fileURLToPath(script), [], {
      serialization: 'advanced',
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: ImageProbeReply) => {
      const waiting = this.waiting;
      if (waiting === undefined || waiting.id !== reply.id) return;
      this.answered();
      if ('facts' in reply) waiting.resolve(reply.facts);
      else waiting.reject(new Error(reply.error));
    });
    this.exited = new Promise((resolve) => {
      const gone = (reason: string) => {
        this.retire();
        clearTimeout(this.waiting?.timer);
        const waiting = this.waiting;
        this.waiting = undefined;
        waiting?.reject(new Error(`The image probe process ended (${reason}) while it read this image.`));
        resolve();
      };
      this.child.on('exit', (code, signal) => gone(signal ?? `exit code ${code}`));
      // A process that could not be started has no exit to wait for; one that could exits after this.
      this.child.on('error', (error) => {
        if (this.child.pid === undefined) gone(error.message);
        else this.child.kill('SIGKILL');
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends one image; resolves with its facts. Only one at a time (IsolatedImageProber orders them). */
  probe(image: ImageBytes, options: { maxInputPixels: number; timeoutSeconds: number }): Promise<MediaFacts> {
    clearTimeout(this.idleTimer);
    this.child.ref();
    this.channel()?.ref();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), options.timeoutSeconds * 1000 + PROBE_MARGIN_MS);
      this.waiting = { id, resolve, reject, timer };
      const request: ImageProbeRequest = { id, bytes: image.bytes, whole: image.whole, ...options };
      this.child.send(request, (error) => {
        if (error) this.child.kill('SIGKILL');
      });
    });
  }

  /** Ends the process; resolves once it has exited. */
  end(): Promise<void> {
    this.retire();
    // Referenced until it has exited, so that a caller awaiting this is not cut short.
    this.child.ref();
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Takes no more probes from now on (IsolatedImageProber starts another process for the next). */
  private retire(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.onEnd();
  }

  /** The request in flight has been answered: the child is unreferenced (it does not keep this process alive) and ends after `idleMs` without another request. */
  private answered(): void {
    clearTimeout(this.waiting?.timer);
    this.waiting = undefined;
    this.child.unref();
    this.channel()?.unref();
    this.idleTimer = setTimeout(() => {
      if (this.waiting !== undefined || this.ended) return;
      this.retire();
      // The process exits once its channel closes (image-probe-process.ts).
      this.child.disconnect();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** The IPC channel, whose `ref`/`unref` say whether it keeps this process alive. */
  private channel(): { ref(): void; unref(): void } | undefined {
    return (this.child as ChildProcess & { channel?: { ref(): void; unref(): void } | null }).channel ?? undefined;
  }
}
