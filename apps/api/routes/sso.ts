import { Type } from '@sinclair/typebox';
import type Koa from 'koa';
import type { Hangar } from '../../../core/hangar.js';
import { type DomainError, isDomainError } from '../../../core/shared/errors.js';
import { SILENT_LOGGER, type Logger } from '../../../core/shared/logger.js';
import { defineRoute, type Route } from '../../http/route.js';
import { sessionJson, userJson } from '../../http/presenters/presenters.js';
import { SessionBody, UserBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';

const Invite = Type.String({ maxLength: 256 });

/**
 * Where a browser lands after the sign-in through the provider: the dashboard's `/#/sso` screen,
 * with a hand-over code or an error. Everything after `#` stays in the browser (never sent to a
 * server, so never in an access log), and the code works once, for a minute.
 */
function toDashboard(ctx: Koa.Context, params: Record<string, string>): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.redirect(`/#/sso?${new URLSearchParams(params).toString()}`);
  ctx.body = '';
}

/**
 * A refused sign-in: the browser gets the stable `error` code alone (the dashboard words it), since
 * a message may carry what the provider or the network said (`TypeError: fetch failed`), which
 * belongs in the operator's log, not in a URL the user may paste anywhere. The message goes to
 * `logger` as `oidc_sign_in_refused` (warn) with the request id.
 */
function refused(ctx: Koa.Context, logger: Logger, step: 'start' | 'callback', error: DomainError): void {
  logger.warn('oidc_sign_in_refused', { request_id: ctx.state.requestId ?? null, step, code: error.code, detail: error.message });
  toDashboard(ctx, { error: error.code });
}

/** Sign-in methods and who may register; single sign-on through an OpenID provider (docs/security.md, "Single sign-on and invites"). */
export function ssoRoutes(hangar: Hangar, options: { publicApiUrl: string; logger?: Logger }): Route[] {
  const logger = options.logger ?? SILENT_LOGGER;
  return [
    defineRoute({
      method: 'GET',
      path: '/auth/providers',
      operationId: 'signInProviders',
      tag: 'auth',
      auth: 'none',
      summary: 'How one may sign in and register here: the single sign-on provider (null when off) and the REGISTRATION mode',
      responses: {
        200: Type.Object({
          oidc: Type.Union([
            Type.Null(),
            Type.Object({
              name: Type.String({ description: 'Shown as “Sign in with <name>”.' }),
              start_url: Type.String({ description: 'Send the browser here to sign in.' }),
            }),
          ]),
          registration: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], {
            description: 'open: anyone; invite: with an invite link only; closed: no new accounts.',
          }),
        }),
      },
      handler: async ({ ctx }) => {
        const { oidc, registration } = hangar.getSignInProviders.execute();
        ctx.body = { oidc: oidc && { name: oidc.name, start_url: '/auth/oidc/start' }, registration };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/oidc/start',
      operationId: 'startOidcSignIn',
      tag: 'auth',
      auth: 'none',
      summary: 'Browser navigation: 302 to the OpenID provider (authorization code flow with PKCE); on failure 302 to the dashboard’s /#/sso?error=…',
      description: 'At most 30 starts a minute per client address (each stores the flow); past that the browser lands on /#/sso?error=RATE_LIMITED.',
      query: Type.Object({ invite: Type.Optional(Invite) }),
      responses: { 302: null, ...errors(400) },
      handler: async ({ ctx, query }) => {
        try {
          const { authorizationUrl } = await hangar.beginOidcSignIn.execute({ invite: query.invite, client: ctx.state.client });
          ctx.set('Cache-Control', 'no-store');
          ctx.redirect(authorizationUrl);
          ctx.body = '';
        } catch (error) {
          if (!isDomainError(error)) throw error;
          refused(ctx, logger, 'start', error);
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/oidc/callback',
      operationId: 'oidcCallback',
      tag: 'auth',
      auth: 'none',
      summary: 'The OpenID provider’s redirect back: 302 to the dashboard’s /#/sso?code=… (a single-use code for POST /auth/oidc/exchange), or /#/sso?error=…',
      description:
        'Register `{PUBLIC_API_URL}/auth/oidc/callback` as the redirect URI at the provider. No token travels in the URL: the dashboard exchanges the code, valid one minute, with POST /auth/oidc/exchange.',
      query: Type.Object({ state: Type.Optional(Type.String({ maxLength: 1024 })) }),
      responses: { 302: null, ...errors(400) },
      handler: async ({ ctx, query }) => {
        try {
          const callbackUrl = `${options.publicApiUrl}/auth/oidc/callback?${ctx.querystring}`;
          const { code } = await hangar.completeOidcSignIn.execute({ state: query.state ?? '', callbackUrl });
          toDashboard(ctx, { code });
        } catch (error) {
          if (!isDomainError(error)) throw error;
          refused(ctx, logger, 'callback', error);
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/oidc/exchange',
      operationId: 'exchangeOidcCode',
      tag: 'auth',
      auth: 'none',
      summary: 'Exchange the single-use code from the sign-in callback for a session (the answer of POST /auth/login)',
      body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 256 }) }),
      responses: { 200: Type.Object({ user: UserBody, session: SessionBody }), ...errors(400, 403) },
      handler: async ({ ctx, body }) => {
        const { user, session } = await hangar.exchangeSignInCode.execute({ code: body.code, client: ctx.state.client, device: ctx.state.device });
        // As for POST /auth/login: the activity log records the sign-in as the new session's first request.
        ctx.state.principal = await hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }).catch(() => undefined);
        ctx.body = { user: userJson(user, true), session: sessionJson(session) };
      },
    }),
  ];
}
