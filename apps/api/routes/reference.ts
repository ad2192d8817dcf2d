import { Type } from '@sinclair/typebox';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Hangar } from '../../../core/hangar.js';
import type { Plan } from '../../../core/plans/plan.js';
import { DomainError } from '../../../core/shared/errors.js';
import { ERROR_STATUS } from '../../http/error-status.js';
import { operationalRoutes, type OperationalOptions, Readiness } from '../../http/health.js';
import { readBuildInfo } from '../../http/build-info.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../../http/openapi.js';
import { defineRoute, HTML, type Route } from '../../http/route.js';
import { renderPage } from '../../http/pages.js';
import { errors } from '../../http/error-body.js';
import { agentGuide, agentGuideText, AgentGuideBody } from '../agent-guide.js';

/** Version of the HTTP interface described by the OpenAPI document and the agent guide. */
export const API_VERSION = '1.0.0';

/**
 * The licence the OpenAPI document states (Info `license`). The project has not chosen an open
 * licence (package.json is `private`): `UNLICENSED` is npm's name for "no licence is granted".
 * Change it here, and in package.json, when one is chosen.
 */
export const API_LICENSE = { name: 'UNLICENSED' };

/** What the reference endpoints tell about this deployment. */
export interface ReferenceOptions {
  allowedContentTypes: readonly string[];
  /** {base_url} and {cdn_url}. */
  publicApiUrl: string;
  publicContentUrl: string;
  /** The plan of new accounts and the service default upload limit (bytes). */
  defaultPlan: Plan;
  defaultMaxUploadSizeBytes: number;
  /** Every route of both servers, for the document (called once, after the table is complete). */
  allRoutes: () => readonly Route[];
  /** `/readyz` and `/version` (default: a process never draining, and the build read from dist/). */
  operational?: OperationalOptions;
}

const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The renderer's files served under /docs/assets, from the project's own dependency (no CDN). */
const DOC_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Public reference endpoints (spec 4.18), the browsable docs and the health check. */
export function referenceRoutes(hangar: Hangar, options: ReferenceOptions): Route[] {
  let document: OpenApiDocument | undefined;
  const openApi = () =>
    (document ??= buildOpenApiDocument(options.allRoutes(), {
      title: 'Hangar API',
      version: API_VERSION,
      description:
        'Self-hosted file hosting: upload files with an API key, serve them at public addresses on the content server. ' +
        'Errors are `{ code, message, request_id, details? }`; see GET /reference/for-agents for a guided tour.',
      apiUrl: options.publicApiUrl,
      contentUrl: options.publicContentUrl,
      license: API_LICENSE,
    }));
  const guide = () => agentGuide({ ...options, routes: options.allRoutes(), version: API_VERSION, errorStatus: ERROR_STATUS });
  return [
    defineRoute({
      method: 'GET',
      path: '/reference/allowed-content-types',
      operationId: 'allowedContentTypes',
      tag: 'reference',
      auth: 'none',
      summary: 'MIME types allowed for upload',
      responses: { 200: Type.Object({ content_types: Type.Array(Type.String(), { examples: [['image/png', 'application/pdf']] }) }) },
      handler: async ({ ctx }) => {
        ctx.body = { content_types: options.allowedContentTypes };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/reference/openapi.json',
      operationId: 'openApiDocument',
      tag: 'reference',
      auth: 'none',
      summary: 'This OpenAPI 3.0.3 document',
      responses: { 200: Type.Object({ openapi: Type.String() }) },
      handler: async ({ ctx }) => {
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.body = openApi();
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/reference/for-agents',
      operationId: 'agentGuide',
      tag: 'reference',
      auth: 'none',
      summary: 'Discovery payload for automated agents (JSON; plain text with Accept: text/plain)',
      responses: { 200: { alternatives: { 'application/json': AgentGuideBody, 'text/plain': Type.String() } } },
      handler: async ({ ctx }) => {
        ctx.set('Vary', 'Accept');
        if (ctx.accepts('application/json', 'text/plain') === 'text/plain') {
          ctx.type = 'text/plain; charset=utf-8';
          ctx.body = agentGuideText(guide());
        } else {
          ctx.body = guide();
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/reference/for-agents.txt',
      operationId: 'agentGuideText',
      tag: 'reference',
      auth: 'none',
      summary: 'The discovery payload as plain text (llms.txt style)',
      responses: { 200: { alternatives: { 'text/plain': Type.String() } } },
      handler: async ({ ctx }) => {
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = agentGuideText(guide());
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      operationId: 'docs',
      tag: 'reference',
      auth: 'none',
      summary: 'Browsable API reference rendered from the OpenAPI document',
      responses: { 200: HTML },
      handler: async ({ ctx }) =>
        renderPage(ctx, {
          status: 200,
          title: 'API reference',
          full: true,
          head: '<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="icon" href="/docs/assets/favicon-32x32.png">',
          body: '<div id="swagger-ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>',
          script: "window.ui = SwaggerUIBundle({ url: '/reference/openapi.json', dom_id: '#swagger-ui', deepLinking: true });",
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/assets/:name',
      operationId: 'docsAsset',
      tag: 'reference',
      auth: 'none',
      summary: 'Files of the API reference page',
      params: Type.Object({ name: Type.String() }),
      responses: {
        200: { alternatives: { 'text/css': Type.String(), 'text/javascript': Type.String(), 'image/png': Type.String({ format: 'binary' }) } },
        ...errors(404),
      },
      handler: async ({ ctx, params }) => {
        const type = Object.hasOwn(DOC_ASSETS, params.name) ? DOC_ASSETS[params.name] : undefined;
        if (!type) throw new DomainError('NOT_FOUND', 'No such file.');
        ctx.type = type;
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = createReadStream(path.join(SWAGGER_UI_DIR, params.name));
      },
    }),
    ...operationalRoutes(hangar, options.operational ?? { readiness: new Readiness(), build: readBuildInfo() }),
  ];
}
