import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import Koa from 'koa';
import { sendJsonBodiesAsBuffers } from '../../apps/http/json-body.js';
import { runNode } from '../support/cli-process.js';

/** What each path answers, set by the handler as an app would. */
const ANSWERS: Record<string, (ctx: Koa.Context) => void> = {
  '/object': (ctx) => {
    ctx.body = { files: [{ name: 'café ☕ "quoted" \\ \u0001 😀', size: 4096 }], total: 1, total_relation: 'eq' };
  },
  '/array': (ctx) => {
    ctx.body = [1, 'two', { three: null }];
  },
  '/created': (ctx) => {
    ctx.status = 201;
    ctx.body = { file: { id: 'Ab3dE6gH1k' }, message: 'File uploaded.' };
  },
  '/problem': (ctx) => {
    ctx.type = 'application/problem+json';
    ctx.body = { code: 'VALIDATION_FAILED', message: 'No.' };
  },
  '/type-after': (ctx) => {
    ctx.body = { a: 1 };
    ctx.type = 'application/vnd.hangar+json';
  },
  '/null-prototype': (ctx) => {
    ctx.body = Object.assign(Object.create(null) as object, { a: 'b' });
  },
  '/date': (ctx) => {
    ctx.body = new Date(Date.UTC(2026, 10, 28));
  },
  '/string': (ctx) => {
    ctx.body = 'plain text é';
  },
  '/buffer': (ctx) => {
    ctx.body = Buffer.from('bytes');
  },
  '/stream': (ctx) => {
    ctx.body = Readable.from([Buffer.from('streamed')]);
  },
  '/no-content': (ctx) => {
    ctx.body = { ignored: true };
    ctx.status = 204;
  },
  '/not-modified': (ctx) => {
    ctx.body = { ignored: true };
    ctx.status = 304;
  },
  '/null': (ctx) => {
    ctx.body = null;
  },
  '/no-type': (ctx) => {
    ctx.body = { a: 1 };
    ctx.remove('Content-Type');
  },
  '/thrown': () => {
    throw Object.assign(new Error('bad'), { status: 418, expose: true });
  },
};

/** An app answering {@link ANSWERS}, as Koa does or with JSON bodies sent as Buffers. */
function appWith(buffers: boolean): Koa {
  const app = new Koa();
  app.silent = true;
  if (buffers) sendJsonBodiesAsBuffers(app);
  app.use((ctx) => ANSWERS[ctx.path]?.(ctx));
  return app;
}

async function listen(app: Koa): Promise<{ server: Server; base: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Status, the headers a client reads (without Date and Connection), and the body's bytes. */
async function answerOf(base: string, path: string, method: string) {
  const response = await fetch(`${base}${path}`, { method });
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date' && name !== 'connection' && name !== 'keep-alive'));
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()).toString('base64') };
}

describe('sendJsonBodiesAsBuffers', () => {
  let plain: { server: Server; base: string };
  let converted: { server: Server; base: string };
  let seen: unknown;

  before(async () => {
    plain = await listen(appWith(false));
    const app = appWith(true);
    // Records the body Koa holds once the handler is done, to show which answers were converted.
    app.middleware.unshift(async (ctx, next) => {
      await next();
      seen = ctx.body;
    });
    converted = await listen(app);
  });

  after(async () => {
    for (const { server } of [plain, converted]) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const path of Object.keys(ANSWERS)) {
    for (const method of ['GET', 'HEAD']) {
      it(`answers ${method} ${path} exactly as Koa does (status, headers, bytes)`, async () => {
        const expected = await answerOf(plain.base, path, method);
        const actual = await answerOf(converted.base, path, method);
        expect(actual).to.deep.equal(expected);
      });
    }
  }

  it('hands plain objects and arrays to Koa as Buffers, and leaves every other body as it was', async () => {
    const buffers: string[] = [];
    for (const path of Object.keys(ANSWERS)) {
      seen = undefined;
      await answerOf(converted.base, path, 'GET');
      if (Buffer.isBuffer(seen) && path !== '/buffer') buffers.push(path);
    }
    expect(buffers).to.deep.equal(['/object', '/array', '/created', '/problem', '/type-after', '/null-prototype', '/no-type']);
  });

  it('gives a body with characters outside ASCII its length in UTF-8 bytes', async () => {
    const response = await fetch(`${converted.base}/object`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length')))
      .to.equal(bytes.length)
      .and.to.be.greaterThan(bytes.toString('utf8').length);
    expect(JSON.parse(bytes.toString('utf8'))).to.deep.equal({
      files: [{ name: 'café ☕ "quoted" \\ \u0001 😀', size: 4096 }],
      total: 1,
      total_relation: 'eq',
    });
  });

  it('answers a JSON body without loading fetch (undici): Koa alone loads it at the first object body', async () => {
    // A process of its own: this one has loaded undici for its own requests. It answers one object
    // body and prints whether Node loaded undici, the internal module behind the global `Response`.
    const script = (buffers: boolean) => `
      import http from 'node:http';
      import Koa from ${JSON.stringify(import.meta.resolve('koa'))};
      import { sendJsonBodiesAsBuffers } from ${JSON.stringify(import.meta.resolve('../../apps/http/json-body.js'))};
      const app = new Koa();
      ${buffers ? 'sendJsonBodiesAsBuffers(app);' : ''}
      app.use((ctx) => { ctx.body = { status: 'ok' }; });
      const server = app.listen(0, '127.0.0.1', () => {
        http.get({ host: '127.0.0.1', port: server.address().port, path: '/' }, (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => {
            console.log(JSON.stringify({ text, undici: process.moduleLoadList.some((name) => name.includes('undici')) }));
            server.close();
          });
        });
      });`;
    const [koa, buffers] = await Promise.all([false, true].map((buffers) => runNode(['--input-type=module', '-e', script(buffers)])));
    for (const result of [koa, buffers]) expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(koa.stdout)).to.deep.equal({ text: '{"status":"ok"}', undici: true });
    expect(JSON.parse(buffers.stdout)).to.deep.equal({ text: '{"status":"ok"}', undici: false });
  });
});
