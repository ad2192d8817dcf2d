import http, { type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { sendBody } from '../../apps/http/send-body.js';

/** A body as a blob store hands it out: `steps` in order (a chunk, or an error to reject with); counts its calls. */
class ScriptedBody implements AsyncIterator<Uint8Array> {
  nextCalls = 0;
  returned = false;
  /** Each step's chunk is overwritten with 0xEE bytes two next() calls later, as a store reusing borrowed memory may. */
  private readonly lent: Uint8Array[] = [];

  constructor(
    private readonly steps: (Uint8Array | Error)[],
    private readonly delayMs = 0,
  ) {}

  async next(): Promise<IteratorResult<Uint8Array>> {
    this.nextCalls += 1;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const reused = this.lent.length >= 2 ? this.lent[this.lent.length - 2] : undefined;
    reused?.fill(0xee);
    const step = this.steps.shift();
    if (step === undefined) return { done: true, value: undefined };
    if (step instanceof Error) throw step;
    this.lent.push(step);
    return { done: false, value: step };
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.returned = true;
    return { done: true, value: undefined };
  }
}

/** What the client received: the status, the bytes, and whether the body ended as announced. */
interface Received {
  status: number;
  bytes: Buffer;
  complete: boolean;
}

/**
 * sendBody (apps/http/send-body.ts) on a real socket: a server whose handler sets the headers and
 * calls sendBody with the scripted body, and a client that reads the whole answer.
 */
describe('apps: sendBody on a real socket (small bodies, bodies longer than announced, failures, clients gone)', () => {
  let server: Server;
  let url: string;
  let handle: (res: ServerResponse) => Promise<void>;
  let outcome: Promise<unknown>;

  before(async () => {
    server = http.createServer((_req, res) => {
      outcome = handle(res).then(
        () => undefined,
        (error: unknown) => {
          res.destroy();
          return error;
        },
      );
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function serve(body: ScriptedBody, announced: number): void {
    handle = async (res) => {
      const first = await body.next();
      res.writeHead(200, ['Content-Length', String(announced), 'Content-Type', 'application/octet-stream']);
      await sendBody(res, body, first, announced);
    };
  }

  function get(): Promise<Received> {
    return new Promise((resolve) => {
      const request = http.get(url, { agent: false }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (chunk: Buffer) => parts.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, bytes: Buffer.concat(parts), complete: response.complete }));
        response.on('error', () => resolve({ status: response.statusCode!, bytes: Buffer.concat(parts), complete: false }));
      });
      request.on('error', () => resolve({ status: 0, bytes: Buffer.alloc(0), complete: false }));
    });
  }

  it('sends a body of one chunk whole, asking the body for nothing after its end', async () => {
    const bytes = Buffer.from('0123456789'.repeat(410));
    const body = new ScriptedBody([Buffer.from(bytes)]);
    serve(body, bytes.length);
    const received = await get();
    expect(await outcome).to.equal(undefined);
    expect(received).to.deep.include({ status: 200, complete: true });
    expect(received.bytes.equals(bytes)).to.equal(true);
    expect(body.nextCalls, 'the first chunk and the end').to.equal(2);
    expect(body.returned, 'a body that ended is not closed again').to.equal(false);
  });

  it('sends an empty body (Content-Length 0) from one empty chunk', async () => {
    const body = new ScriptedBody([Buffer.alloc(0)]);
    serve(body, 0);
    const received = await get();
    expect(await outcome).to.equal(undefined);
    expect(received).to.deep.include({ status: 200, complete: true });
    expect(received.bytes.length).to.equal(0);
  });

  it('cuts the connection, never a body that looks whole, when more bytes follow the announced ones', async () => {
    const bytes = Buffer.alloc(4096, 1);
    const body = new ScriptedBody([Buffer.from(bytes), Buffer.from('extra')]);
    serve(body, bytes.length);
    const received = await get();
    expect(received.complete).to.equal(false);
    expect(String(await outcome)).to.contain('more bytes');
    expect(body.returned, 'the body is closed').to.equal(true);
  });

  it('still sends the bytes, unspoilt, when empty chunks come before the end', async () => {
    const bytes = Buffer.alloc(4096, 7);
    const body = new ScriptedBody([Buffer.from(bytes), Buffer.alloc(0), Buffer.alloc(0)]);
    serve(body, bytes.length);
    const received = await get();
    expect(await outcome).to.equal(undefined);
    expect(received).to.deep.include({ status: 200, complete: true });
    expect(received.bytes.equals(bytes), 'no byte of a reused chunk was sent').to.equal(true);
  });

  it('cuts the connection when the body fails after its first chunk', async () => {
    const body = new ScriptedBody([Buffer.alloc(4096, 2), new Error('disk gone')]);
    serve(body, 4096);
    const received = await get();
    expect(received.complete).to.equal(false);
    expect(String(await outcome)).to.contain('disk gone');
  });

  it('rejects as a client gone, and closes the body, when the client leaves while the end is awaited', async () => {
    const body = new ScriptedBody([Buffer.alloc(4096, 3)], 200);
    serve(body, 4096);
    await new Promise<void>((resolve) => {
      const request = http.get(url, { agent: false });
      request.on('error', () => resolve());
      // Gone before the body's (delayed) end arrives: the server has written nothing yet.
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 300);
    });
    const error = (await outcome) as NodeJS.ErrnoException;
    expect(error?.code).to.equal('ERR_STREAM_PREMATURE_CLOSE');
    expect(body.returned).to.equal(true);
  });
});
