import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { isDomainError } from '../../../core/shared/errors.js';
import { defineRoute, HTML, type Route } from '../../http/route.js';
import { confirmedPage, invalidLinkPage } from '../pages.js';
import { sessionJson, userJson } from '../../http/presenters/presenters.js';
import { MessageBody, MfaRequiredBody, SessionBody, UserBody } from '../schemas.js';
import { ErrorBody, errors } from '../../http/error-body.js';
import type { Context } from 'koa';
import type { SessionTokens } from '../../../core/accounts/session-issuer.js';
import type { User } from '../../../core/accounts/user.js';
import { toIso } from '../../../core/shared/time.js';

const Email = Type.String({ maxLength: 320 });
const Password = Type.String({ maxLength: 4096 });
const RedirectTo = Type.String({ maxLength: 2048 });
const Token = Type.String({ minLength: 1, maxLength: 256 });

/** Registration, confirmation, login, sessions and password reset (spec 4.2–4.4, 5). */
export function authRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/register',
      operationId: 'register',
      tag: 'auth',
      auth: 'none',
      summary: 'Create an account and mail a confirmation link (REGISTRATION=invite: with an invite; closed: refused)',
      body: Type.Object({
        email: Email,
        password: Password,
        redirect_to: Type.Optional(RedirectTo),
        invite: Type.Optional(
          Type.String({
            maxLength: 256,
            description: 'The invite token from an invite link (`/#/register?invite=…`); required when GET /auth/providers says registration is `invite`.',
          }),
        ),
      }),
      responses: { 201: Type.Object({ message: Type.String(), user: UserBody }), ...errors(400, 403, 429) },
      handler: async ({ ctx, body }) => {
        const result = await hangar.registerAccount.execute({
          email: body.email,
          password: body.password,
          redirectTo: body.redirect_to,
          client: ctx.state.client,
          invite: body.invite,
        });
        ctx.status = 201;
        ctx.body = { message: result.message, user: userJson(result.user) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/confirm',
      operationId: 'confirmEmail',
      tag: 'auth',
      auth: 'none',
      summary: 'Confirm the e-mail address from the mailed link; 302 to redirect_to, signed in (tokens in the URL fragment)',
      query: Type.Object({ token: Type.String() }),
      // 400: the small page for an unknown, used or expired link; the JSON error for a request without a token.
      responses: { 302: null, 400: { alternatives: { 'text/html': Type.String(), 'application/json': ErrorBody } }, ...errors(403) },
      handler: async ({ ctx, query }) => {
        try {
          const { redirectTo, session } = await hangar.confirmEmail.execute({ token: query.token, device: ctx.state.device });
          // Tokens travel in the fragment, which browsers never send to servers (as GoTrue does).
          const fragment = new URLSearchParams({ ...stringify(sessionJson(session)), type: 'signup' }).toString();
          ctx.set('Cache-Control', 'no-store');
          // Without redirect_to the user lands signed in on the dashboard (spec 5.2), served at /.
          ctx.redirect(`${redirectTo ?? '/'}#${fragment}`);
          // Koa writes "Redirecting to <url>" as the body: the tokens belong in Location only.
          ctx.body = '';
        } catch (error) {
          if (!isDomainError(error, 'INVALID_TOKEN')) throw error;
          invalidLinkPage(ctx, error.message);
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/confirmed',
      operationId: 'confirmedPage',
      tag: 'auth',
      auth: 'none',
      summary: 'A plain “address confirmed” page (confirmation without redirect_to lands on the dashboard at / instead)',
      responses: { 200: HTML },
      handler: async ({ ctx }) => confirmedPage(ctx),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      operationId: 'login',
      tag: 'auth',
      auth: 'none',
      summary: 'Log in with e-mail and password; with two-factor sign-in on, answers an mfa_token for POST /auth/mfa/verify instead of a session',
      body: Type.Object({ email: Email, password: Password }),
      responses: { 200: Type.Union([Type.Object({ user: UserBody, session: SessionBody }), MfaRequiredBody]), ...errors(400, 401, 403, 429) },
      handler: async ({ ctx, body }) => {
        const result = await hangar.logIn.execute({ email: body.email, password: body.password, client: ctx.state.client, device: ctx.state.device });
        if (result.session === undefined) {
          ctx.body = { mfa_required: true, mfa_token: result.mfaToken, expires_at: toIso(result.mfaTokenExpiresAt) };
          return;
        }
        await signedIn(hangar, ctx, result.user, result.session);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/refresh',
      operationId: 'refreshSession',
      tag: 'auth',
      auth: 'none',
      summary: 'Exchange a refresh token for a new session (the old refresh token stops working)',
      body: Type.Object({ refresh_token: Token }),
      responses: { 200: Type.Object({ session: SessionBody }), ...errors(400, 401, 403) },
      handler: async ({ ctx, body }) => {
        ctx.body = { session: sessionJson(await hangar.refreshSession.execute({ refreshToken: body.refresh_token })) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      operationId: 'logout',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Revoke the current session',
      responses: { 204: null, ...errors(401, 403) },
      handler: async ({ ctx, principal }) => {
        if (principal.kind === 'session') await hangar.logOut.execute({ sessionId: principal.sessionId });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/forgot-password',
      operationId: 'forgotPassword',
      tag: 'auth',
      auth: 'none',
      summary: 'Mail a password reset link (same answer whether the account exists or not)',
      body: Type.Object({ email: Email, redirect_to: Type.Optional(RedirectTo) }),
      responses: { 200: MessageBody, ...errors(400, 429) },
      handler: async ({ ctx, body }) => {
        await hangar.requestPasswordReset.execute({ email: body.email, redirectTo: body.redirect_to, client: ctx.state.client });
        ctx.body = {
          message:
            'If an account exists for this address, we sent it a link to reset the password. If you asked less than a minute ago, wait a minute and try again.',
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/resend-confirmation',
      operationId: 'resendConfirmation',
      tag: 'auth',
      auth: 'none',
      summary: 'Mail a new e-mail confirmation link to an unconfirmed account (same answer whether such an account exists or not)',
      body: Type.Object({ email: Email, redirect_to: Type.Optional(RedirectTo) }),
      responses: { 200: MessageBody, ...errors(400, 429) },
      handler: async ({ ctx, body }) => {
        await hangar.resendConfirmation.execute({ email: body.email, redirectTo: body.redirect_to, client: ctx.state.client });
        ctx.body = {
          message:
            'If this address has an account waiting for confirmation, we sent it a new confirmation link. If you asked less than a minute ago, wait a minute and try again.',
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/reset-password',
      operationId: 'resetPasswordPage',
      tag: 'auth',
      auth: 'none',
      summary: 'Links mailed before the reset form moved to the dashboard: 302 to the dashboard’s reset screen (/#/reset?token=…)',
      query: Type.Object({ token: Type.String({ maxLength: 256 }) }),
      responses: { 302: null },
      handler: async ({ ctx, query }) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.redirect(`/#/reset?${new URLSearchParams({ token: query.token }).toString()}`);
        ctx.body = '';
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/reset-password',
      operationId: 'resetPassword',
      tag: 'auth',
      auth: 'none',
      summary: 'Set a new password with the token from the reset link; revokes every session, and every API key with revoke_api_keys',
      description: 'API keys keep working after a reset unless `revoke_api_keys` is true (default false): then every key of the account is deleted as well.',
      body: Type.Object({
        token: Token,
        password: Password,
        revoke_api_keys: Type.Optional(
          Type.Boolean({ default: false, description: 'Also revoke (delete) every API key of the account. Default false: keys keep working.' }),
        ),
      }),
      responses: {
        200: Type.Object({
          message: Type.String(),
          revoked_api_keys: Type.Integer({ minimum: 0, description: 'How many API keys were revoked (0 unless revoke_api_keys).' }),
        }),
        ...errors(400),
      },
      handler: async ({ ctx, body }) => {
        const { revokedApiKeys } = await hangar.resetPassword.execute({
          token: body.token,
          password: body.password,
          revokeApiKeys: body.revoke_api_keys === true,
        });
        const keys =
          body.revoke_api_keys === true
            ? ` Every API key of the account was revoked (${revokedApiKeys}).`
            : ' Your API keys keep working; revoke them on the API keys screen if they may be exposed.';
        ctx.body = { message: `Your password has been changed. Log in with the new password.${keys}`, revoked_api_keys: revokedApiKeys };
      },
    }),
  ];
}

/**
 * Answers a completed sign-in (`{ user, session }`, the body of POST /auth/login) and records it
 * in the activity log as the new session's first request.
 */
export async function signedIn(hangar: Hangar, ctx: Context, user: User, session: SessionTokens): Promise<void> {
  ctx.state.principal = await hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }).catch(() => undefined);
  ctx.body = { user: userJson(user, true), session: sessionJson(session) };
}

function stringify(record: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, String(v)]));
}
