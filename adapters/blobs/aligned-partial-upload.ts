import { randomUUID } from 'node:crypto';
import type { IHasher } from 'hash-wasm';
import type { AppendResult, PartialBlobState } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';

/**
 * The members every aligned partial blob state holds (GCS and S3 add their own):
 * - `length`, `contentType`: of the blob to be;
 * - `sent`: bytes the back end holds (a multiple of `unit`), counted from the start;
 * - `hash`: the SHA-256 state (hash-wasm `save()`, base64) over those `sent` bytes;
 * - `tail`: the bytes acknowledged past `sent` (fewer than one unit), kept as an object of their
 *   own, `{ name, size }`, or null; `previousTail`: the tail of the state before, deleted by the
 *   append after next (a caller that never stored the newest state still finds the one it has).
 */
export interface AlignedState {
  length: number;
  contentType: string;
  sent: number;
  hash: string;
  tail: { name: string; size: number } | null;
  previousTail: string | null;
}

/** What a back end with aligned writes (GCS resumable sessions, S3 multipart uploads) provides to {@link AlignedPartialUpload}. */
export interface AlignedBackend<S extends AlignedState> {
  /**
   * Bytes the back end holds in fact (GCS: the session's persisted range), at least `state.sent`:
   * more after a process died between sending and storing the state. Default: `state.sent`.
   */
  persisted?(state: S): Promise<number>;
  /**
   * Sends `bytes` (a multiple of the unit in length) as the blob's bytes from `start` (a multiple of
   * the unit); resolves with the state's back-end members updated (e.g. S3 part ETags) once durable.
   */
  send(options: { state: S; start: number; bytes: Buffer }): Promise<S>;
  /** Stores `bytes` as a new object named `name` (a tail). */
  writeTail(options: { name: string; bytes: Buffer }): Promise<void>;
  /** The bytes of the tail object `name`. @throws Error when it is missing (the state is not this store's) */
  readTail(name: string): Promise<Buffer>;
  /** Deletes the tail object `name`; nothing when it is gone. */
  deleteTail(name: string): Promise<void>;
}

/**
 * The append algorithm shared by partial blob stores whose back end takes bytes only in aligned
 * units (GCS: multiples of 256 KiB; S3: parts of one fixed size of at least 5 MiB but the last).
 *
 * Each append gathers, from `state.sent`, the tail of the previous append and then the body into a
 * buffer of at most `bufferBytes`; whole units go to the back end as the buffer fills; when the body
 * ends (or fails: a cut connection), whole units go out and the unaligned rest becomes a new tail
 * object, so every byte read is durable and counted in the returned offset, and another process can
 * continue from the state alone. The last byte of the blob is never sent before
 * {@link AlignedPartialUpload.finalBytes}: the blob stays invisible until the store's `complete`.
 *
 * SHA-256 runs over the bytes as they are sent; its state (hash-wasm's `save()`) travels in the
 * partial state, so `complete` has the digest without reading the blob back.
 * Memory per append: `bufferBytes` plus one body chunk.
 */
export class AlignedPartialUpload<S extends AlignedState> {
  constructor(private readonly options: { unit: number; bufferBytes: number; tailName: (state: S) => string; backend: AlignedBackend<S> }) {
    if (options.bufferBytes % options.unit !== 0) throw new Error('bufferBytes must be a multiple of unit.');
  }

  /** The common members of a new state (hash of nothing). */
  static async initialState(options: { length: number; contentType: string }): Promise<AlignedState> {
    const { createSHA256 } = await import('hash-wasm');
    const hasher = await createSHA256();
    hasher.init();
    return {
      length: options.length,
      contentType: options.contentType,
      sent: 0,
      hash: Buffer.from(hasher.save()).toString('base64'),
      tail: null,
      previousTail: null,
    };
  }

  /**
   * One append (the contract of PartialBlobStore.append).
   * @throws DomainError FILE_TOO_LARGE past `length`; BLOB_STORE_UNAVAILABLE from the back end; Error
   *         when `offset` lies past the bytes the state holds (a bug in the caller)
   */
  async append(options: { state: S; offset: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal }): Promise<AppendResult> {
    const { unit, bufferBytes, backend } = this.options;
    let state = options.state;
    const { offset } = options;
    const base = state.sent;
    const acknowledged = base + (state.tail?.size ?? 0);
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > acknowledged) {
      throw new Error(`Append at ${offset}, but the partial blob holds ${acknowledged} bytes.`);
    }
    const held = (await backend.persisted?.(state)) ?? base;
    // The back end may never send the last byte before complete: the highest end a send may reach.
    const sendLimit = Math.floor((state.length - 1) / unit) * unit;
    const hasher = await restoreHash(state.hash);
    const buffer: Buffer[] = [];
    let buffered = 0;
    // Position of the first buffered byte; bytes below `base` are in the back end and hashed already.
    let position = base;
    let skip = Math.max(0, base - offset);
    if (state.tail && offset > base) {
      const tail = (await backend.readTail(state.tail.name)).subarray(0, offset - base);
      buffer.push(tail);
      buffered = tail.length;
    }
    const flush = async (whole: boolean) => {
      let end = Math.min(position + buffered, sendLimit);
      end -= (end - position) % unit;
      if (end <= position || (!whole && buffered < bufferBytes)) return;
      const all = Buffer.concat(buffer, buffered);
      const bytes = all.subarray(0, end - position);
      hasher.update(bytes);
      // Bytes the back end took already (a process died before storing the state) are hashed, not resent.
      if (end > held) {
        const from = Math.max(position, held);
        state = await backend.send({ state, start: from, bytes: bytes.subarray(from - position) });
      }
      buffer.length = 0;
      const rest = all.subarray(bytes.length);
      if (rest.length > 0) buffer.push(Buffer.from(rest));
      buffered = rest.length;
      position = end;
    };
    let interruptedBy: unknown;
    let seen = offset;
    const iterator = options.body[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        options.signal?.throwIfAborted();
        next = await iterator.next();
      } catch (error) {
        interruptedBy = error;
        break;
      }
      if (next.done) break;
      let chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      seen += chunk.length;
      if (seen > state.length) {
        await iterator.return?.();
        throw new DomainError('FILE_TOO_LARGE', `The upload is longer than the ${state.length} bytes it announced.`);
      }
      if (skip > 0) {
        const dropped = Math.min(skip, chunk.length);
        skip -= dropped;
        chunk = chunk.subarray(dropped);
        if (chunk.length === 0) continue;
      }
      buffer.push(chunk);
      buffered += chunk.length;
      if (buffered >= bufferBytes) await flush(false);
    }
    if (skip > 0) {
      // The body ended before the bytes the state holds already: nothing changes.
      const unchanged: AppendResult = { offset: seen, state: options.state as unknown as PartialBlobState };
      return interruptedBy === undefined ? unchanged : { ...unchanged, interruptedBy };
    }
    await flush(true);
    const total = position + buffered;
    const hash = Buffer.from(hasher.save()).toString('base64');
    let tail: AlignedState['tail'] = null;
    if (buffered > 0) {
      tail = { name: this.options.tailName(state), size: buffered };
      await backend.writeTail({ name: tail.name, bytes: Buffer.concat(buffer, buffered) });
    }
    if (state.previousTail) await backend.deleteTail(state.previousTail);
    const next: S = { ...state, sent: position, hash, tail, previousTail: options.state.tail?.name ?? null };
    const result: AppendResult = { offset: total, state: next as unknown as PartialBlobState };
    return interruptedBy === undefined ? result : { ...result, interruptedBy };
  }

  /**
   * The bytes still to send when the blob is complete (the last tail) and the SHA-256 (hex) of the whole blob.
   * @throws Error when the state does not hold `length` bytes (the partial blob is not complete)
   */
  async finalBytes(state: S): Promise<{ bytes: Buffer; sha256: string }> {
    const size = state.sent + (state.tail?.size ?? 0);
    if (size !== state.length) throw new Error(`The partial blob holds ${size} of ${state.length} bytes: not complete.`);
    const bytes = state.tail ? await this.options.backend.readTail(state.tail.name) : Buffer.alloc(0);
    const hasher = await restoreHash(state.hash);
    hasher.update(bytes);
    return { bytes, sha256: hasher.digest('hex') };
  }
}

/** A tail object name under `<directory>/`: a fresh name for every append, so an older state's tail stays valid. */
export function freshTailName(directory: string): string {
  return `${directory}/tail-${randomUUID()}`;
}

async function restoreHash(saved: string): Promise<IHasher> {
  const { createSHA256 } = await import('hash-wasm');
  const hasher = await createSHA256();
  hasher.init();
  hasher.load(Buffer.from(saved, 'base64'));
  return hasher;
}

/** Reads the members of an {@link AlignedState} from a stored state, or throws when it is not one. */
export function alignedStateOf(state: PartialBlobState, extra: readonly string[]): AlignedState & Record<string, unknown> {
  const s = state as unknown as Record<string, unknown>;
  const ok =
    typeof s.length === 'number' &&
    typeof s.contentType === 'string' &&
    typeof s.sent === 'number' &&
    typeof s.hash === 'string' &&
    (s.tail === null || (typeof s.tail === 'object' && typeof (s.tail as { name?: unknown }).name === 'string')) &&
    extra.every((member) => s[member] !== undefined);
  if (!ok) throw new Error(`Not the state of this partial blob store: ${JSON.stringify(state)}`);
  return s as unknown as AlignedState & Record<string, unknown>;
}
