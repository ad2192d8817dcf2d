import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../core/hangar.js';
import type { BuildInfo } from './build-info.js';
import { defineRoute, type Route } from './route.js';

const Checks = Type.Record(Type.String(), Type.String(), { description: 'Each dependency checked (`database`, `blob_store`): `ok` or `failing`' });

/** `GET /healthz`, on both servers: 200 when the database and blob store answer, 503 otherwise. */
export function healthRoute(hangar: Pick<Hangar, 'checkHealth'>): Route {
  return defineRoute({
    method: 'GET',
    path: '/healthz',
    operationId: 'health',
    tag: 'reference',
    auth: 'none',
    summary: 'Health of the database and the blob store',
    responses: {
      200: Type.Object({ status: Type.Literal('ok'), checks: Checks }),
      503: Type.Object({ status: Type.Literal('unavailable'), checks: Checks }),
    },
    handler: async ({ ctx }) => {
      const report = await hangar.checkHealth.execute();
      ctx.status = report.ok ? 200 : 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { status: report.ok ? 'ok' : 'unavailable', checks: report.checks };
    },
  });
}

/**
 * Whether this process takes new work. A process listens only once its migrations are done, so
 * only the shutdown changes it: from the moment it begins ({@link Readiness.drain}), `/readyz`
 * answers 503 `draining` while requests in flight finish.
 */
export class Readiness {
  private drainingSince: number | undefined;

  /** Marks the process as shutting down (idempotent). */
  drain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }
}

/**
 * `GET /readyz`, on both servers, for load balancers and orchestrators: 200 `ready` when the
 * migrations are done (always, once the server answers), and the database and the blob store
 * answer; 503 `unavailable` when one does not, or `draining` from the start of a shutdown.
 * `/healthz` stays the liveness check (the process answers).
 */
export function readinessRoute(hangar: Pick<Hangar, 'checkHealth'>, readiness: Readiness): Route {
  return defineRoute({
    method: 'GET',
    path: '/readyz',
    operationId: 'readiness',
    tag: 'reference',
    auth: 'none',
    summary: 'Readiness: migrated, dependencies answering, not shutting down',
    description:
      '200 once the database is migrated and the database and the blob store answer; 503 `unavailable` when one of them does not, and 503 `draining` from the start of a shutdown while requests in flight finish. `/healthz` is the liveness check.',
    responses: {
      200: Type.Object({ status: Type.Literal('ready'), checks: Checks }),
      503: Type.Object({ status: Type.Union([Type.Literal('unavailable'), Type.Literal('draining')]), checks: Checks }),
    },
    handler: async ({ ctx }) => {
      ctx.set('Cache-Control', 'no-store');
      if (readiness.draining) {
        ctx.status = 503;
        ctx.body = { status: 'draining', checks: {} };
        return;
      }
      const report = await hangar.checkHealth.execute();
      // A shutdown may have begun while the checks ran.
      const status = readiness.draining ? 'draining' : report.ok ? 'ready' : 'unavailable';
      ctx.status = status === 'ready' ? 200 : 503;
      ctx.body = { status, checks: report.checks };
    },
  });
}

/** `GET /version`, on both servers: the version and the commit this build was made from. */
export function versionRoute(build: BuildInfo): Route {
  return defineRoute({
    method: 'GET',
    path: '/version',
    operationId: 'version',
    tag: 'reference',
    auth: 'none',
    summary: 'Version and commit of this build',
    responses: {
      200: Type.Object({
        version: Type.String({ description: 'package.json version', examples: ['0.1.0'] }),
        commit: Type.Union([Type.String(), Type.Null()], { description: 'Git commit built from (40 hex digits), or null when not known' }),
        dirty: Type.Union([Type.Boolean(), Type.Null()], { description: 'Built from a tree with uncommitted changes; null when not known' }),
        built_at: Type.Union([Type.String(), Type.Null()], { description: 'When it was built (ISO 8601)' }),
      }),
    },
    handler: async ({ ctx }) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = build;
    },
  });
}

/** What the operational routes need: the process's {@link Readiness} and its {@link BuildInfo}. */
export interface OperationalOptions {
  readiness: Readiness;
  build: BuildInfo;
}

/** `/healthz`, `/readyz` and `/version`: the same on both servers. */
export function operationalRoutes(hangar: Pick<Hangar, 'checkHealth'>, options: OperationalOptions): Route[] {
  return [healthRoute(hangar), readinessRoute(hangar, options.readiness), versionRoute(options.build)];
}
