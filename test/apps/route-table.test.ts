import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorsMiddleware } from '../../apps/http/errors-middleware.js';
import { allowedMethodsMiddleware } from '../../apps/http/request-guards.js';
import { buildRoutes, type Route, type RouteMiddleware } from '../../apps/http/route.js';
import { SILENT_LOGGER } from '../../core/shared/logger.js';
import { createMemoryHangar } from '../support/memory-hangar.js';
import { everyRoute } from '../support/route-table.js';

/** Every route of both servers as the table holds them, each answering which route ran and with what parameters (no schemas, no credentials). */
function markedRoutes(): Route[] {
  return everyRoute().map(({ method, path, operationId, tag, summary }) => ({
    method,
    path,
    operationId,
    tag,
    summary,
    auth: 'none',
    responses: {},
    handler: async ({ ctx }) => {
      ctx.body = { ran: `${method} ${path}`, params: ctx.params };
    },
  }));
}

/** Serves `middleware` behind the errors and allowed-methods middleware, as both apps do. */
async function serve(middleware: RouteMiddleware, methods: ReadonlySet<string>): Promise<{ server: Server; port: number }> {
  const app = new Koa();
  app.use(errorsMiddleware(SILENT_LOGGER));
  app.use(allowedMethodsMiddleware({ methods }));
  app.use(middleware);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}

/** One request with the request target exactly as given (no URL normalisation); status, Allow and body. */
function send(port: number, method: string, target: string): Promise<{ status: number; allow: string | undefined; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: target }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part) => (text += part));
      response.on('end', () => {
        const body = text === '' ? '' : (JSON.parse(text) as Record<string, unknown>);
        // The request id differs from answer to answer.
        if (typeof body === 'object') delete body.request_id;
        resolve({ status: response.statusCode!, allow: response.headers.allow, body });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

describe('Route table: routes grouped by their first path segment', () => {
  const routes = markedRoutes();
  let grouped: { server: Server; port: number };
  let single: { server: Server; port: number };

  before(async () => {
    const table = buildRoutes(routes, createMemoryHangar().hangar);
    grouped = await serve(table.middleware, table.methods);
    // What the table was before: one @koa/router holding every route, in the same order.
    const router = new Router();
    for (const route of routes)
      router.register(route.path, [route.method], (ctx) =>
        route.handler({ ctx, params: {}, query: undefined, body: undefined, principal: undefined as never, admin: undefined as never }),
      );
    single = await serve(router.routes(), new Set(routes.map((route) => route.method)));
  });

  after(async () => {
    for (const one of [grouped, single]) await new Promise<void>((resolve) => one.server.close(() => resolve()));
  });

  it('answers every request as one router over all the routes does: the same route, parameters, 404, 405 with Allow, 501 and OPTIONS', async function () {
    // About 5 s of CPU; a CI run on a machine at half its speed, sharing it with four other mocha workers, took over 20 s.
    this.timeout(60_000);
    const targets = new Set<string>([
      '/',
      '*',
      '//',
      '/nothing',
      '/nothing/here',
      '//files',
      '/%66iles',
      '/files;x',
      '/files?limit=1',
      '/files/',
      '/FILES',
      '/Files/AbCdEfGhIj/Delete',
      '/settings//',
      '/auth/api-keys/x/y',
    ]);
    for (const route of routes) {
      const filled = route.path.replace(/:[A-Za-z_]+/g, 'AbCdEfGhIj');
      for (const target of [filled, `${filled}/`, filled.toUpperCase(), `${filled}/extra`, filled.replace(/^\/[^/]+/, (first) => `${first}x`), `/x${filled}`])
        targets.add(target);
    }
    const methods = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'PUT', 'PROPFIND'];
    let compared = 0;
    let ran = 0;
    for (const target of targets) {
      for (const method of methods) {
        const [fromGroups, fromOne] = await Promise.all([send(grouped.port, method, target), send(single.port, method, target)]);
        expect(fromGroups, `${method} ${target}`).to.deep.equal(fromOne);
        compared++;
        if (fromOne.status === 200 && typeof fromOne.body === 'object') ran++;
      }
    }
    // The comparison covered every route answering, and the refusals.
    expect(ran).to.be.greaterThan(routes.length);
    expect(compared).to.equal(targets.size * methods.length);
  });

  it('routes a case-insensitive first segment to its routes, and an unknown one to 404', async () => {
    expect((await send(grouped.port, 'GET', '/SETTINGS')).body).to.deep.include({ ran: 'GET /settings' });
    expect((await send(grouped.port, 'DELETE', '/Files/AbCdEfGhIj')).body).to.deep.include({ ran: 'DELETE /files/:id', params: { id: 'AbCdEfGhIj' } });
    expect((await send(grouped.port, 'GET', '/filez')).status).to.equal(404);
  });

  it('keeps one router when a route’s first segment is a parameter, which any path may match', async () => {
    const table = buildRoutes(
      [
        {
          method: 'GET',
          path: '/:anything',
          operationId: 'any',
          tag: 'reference',
          summary: 'any',
          auth: 'none',
          responses: {},
          handler: async ({ ctx }) => void (ctx.body = { ran: 'any' }),
        },
        {
          method: 'GET',
          path: '/files/:id',
          operationId: 'file',
          tag: 'files',
          summary: 'file',
          auth: 'none',
          responses: {},
          handler: async ({ ctx }) => void (ctx.body = { ran: 'file' }),
        },
      ],
      createMemoryHangar().hangar,
    );
    const one = await serve(table.middleware, table.methods);
    try {
      expect((await send(one.port, 'GET', '/whatever')).body).to.deep.equal({ ran: 'any' });
      expect((await send(one.port, 'GET', '/files/AbCdEfGhIj')).body).to.deep.equal({ ran: 'file' });
    } finally {
      await new Promise<void>((resolve) => one.server.close(() => resolve()));
    }
  });
});
