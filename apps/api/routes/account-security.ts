import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { toIso } from '../../../core/shared/time.js';
import { defineRoute, type Route } from '../../http/route.js';
import { DeviceSessionBody, SessionBody, UserBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';
import { signedIn } from './auth.js';

const Code = Type.String({ minLength: 1, maxLength: 64, description: 'A 6-digit TOTP code, or a recovery code' });

/** Two-factor sign-in (TOTP) and device sessions (docs/account-security.md). */
export function accountSecurityRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/auth/mfa',
      operationId: 'getMfaStatus',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Whether two-factor sign-in (TOTP) is on, and how many recovery codes are left',
      responses: {
        200: Type.Object({
          totp: Type.Union([Type.Literal('off'), Type.Literal('pending'), Type.Literal('on')]),
          recovery_codes_left: Type.Integer({ minimum: 0 }),
        }),
        ...errors(401, 403),
      },
      handler: async ({ ctx, principal }) => {
        const status = await hangar.getMfaStatus.execute({ userId: principal.userId });
        ctx.body = { totp: status.totp, recovery_codes_left: status.recoveryCodesLeft };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/totp',
      operationId: 'startTotpEnrolment',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Start turning on two-factor sign-in: a new TOTP secret and its otpauth:// URI (for a QR code); confirm with POST /auth/mfa/totp/verify',
      responses: { 200: Type.Object({ secret: Type.String({ description: 'Base32' }), otpauth_uri: Type.String() }), ...errors(401, 403, 409) },
      handler: async ({ ctx, principal }) => {
        const enrolment = await hangar.startTotpEnrolment.execute({
          userId: principal.userId,
          secondFactor: principal.kind === 'session' ? principal.secondFactor : undefined,
        });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { secret: enrolment.secret, otpauth_uri: enrolment.otpauthUri };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/totp/verify',
      operationId: 'confirmTotpEnrolment',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Turn two-factor sign-in on with a first code; answers the 10 one-time recovery codes, shown only here',
      body: Type.Object({ code: Code }),
      responses: { 200: Type.Object({ recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10 }) }), ...errors(400, 401, 403, 409, 429) },
      handler: async ({ ctx, body, principal }) => {
        const { recoveryCodes } = await hangar.confirmTotpEnrolment.execute({
          userId: principal.userId,
          code: body.code,
          sessionId: principal.kind === 'session' ? principal.sessionId : undefined,
        });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { recovery_codes: recoveryCodes };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/mfa/totp',
      operationId: 'disableTotp',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Turn two-factor sign-in off with a current TOTP code or an unused recovery code',
      body: Type.Object({ code: Code }),
      responses: { 204: null, ...errors(400, 401, 403, 409, 429) },
      handler: async ({ ctx, body, principal }) => {
        await hangar.disableTotp.execute({ userId: principal.userId, code: body.code });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/verify',
      operationId: 'completeMfaSignIn',
      tag: 'auth',
      auth: 'none',
      summary: 'Second step of a login with two-factor sign-in on: the mfa_token and a TOTP or recovery code; answers like POST /auth/login',
      body: Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 256 }), code: Code }),
      responses: { 200: Type.Object({ user: UserBody, session: SessionBody }), ...errors(400, 401, 403, 429) },
      handler: async ({ ctx, body }) => {
        const { user, session } = await hangar.completeMfaSignIn.execute({ mfaToken: body.mfa_token, code: body.code, device: ctx.state.device });
        await signedIn(hangar, ctx, user, session);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/sessions',
      operationId: 'listSessions',
      tag: 'auth',
      auth: 'jwt',
      summary: 'The account’s signed-in devices (live sessions), most recently used first; `current` marks the caller’s',
      responses: { 200: Type.Object({ sessions: Type.Array(DeviceSessionBody) }), ...errors(401, 403) },
      handler: async ({ ctx, principal }) => {
        const sessions = await hangar.listSessions.execute({
          userId: principal.userId,
          currentSessionId: principal.kind === 'session' ? principal.sessionId : undefined,
        });
        ctx.body = {
          sessions: sessions.map((s) => ({
            id: s.id,
            created_at: toIso(s.createdAt),
            last_used_at: toIso(s.lastUsedAt),
            user_agent: s.userAgent,
            ip: s.ip,
            current: s.current,
          })),
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/sessions/:id',
      operationId: 'endSession',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Sign a device out: ends that session (its refresh token at once, its access tokens within 1 s on every process)',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.endSession.execute({ userId: principal.userId, sessionId: params.id });
        ctx.status = 204;
      },
    }),
  ];
}
