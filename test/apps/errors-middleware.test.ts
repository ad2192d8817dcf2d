import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { errorsMiddleware } from '../../apps/http/errors-middleware.js';
import { DomainError } from '../../core/shared/errors.js';
import { SILENT_LOGGER } from '../../core/shared/logger.js';

describe('errorsMiddleware', () => {
  let server: Server;
  let base: string;

  before(async () => {
    const app = new Koa();
    app.use(errorsMiddleware(SILENT_LOGGER));
    app.use((ctx) => {
      if (ctx.path === '/collision') throw new DomainError('FILE_ID_COLLISION', 'The random file id was taken; send the upload again.');
      throw new DomainError('STORAGE_LIMIT_REACHED', 'Full.');
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers a file id collision with 503 FILE_ID_COLLISION and Retry-After: 1 (send the upload again)', async () => {
    const response = await fetch(`${base}/collision`, { method: 'POST', body: 'bytes' });
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('1');
    expect(await response.json()).to.include({ code: 'FILE_ID_COLLISION' });
  });

  it('sends no Retry-After with a refusal that waiting does not lift', async () => {
    const response = await fetch(`${base}/full`, { method: 'POST', body: 'bytes' });
    expect(response.status).to.equal(403);
    expect(response.headers.get('retry-after')).to.equal(null);
  });
});
