import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { PASSKEY_NAME_MAX_LENGTH } from '../../../core/passkeys/passkey.js';
import { defineRoute, type Route } from '../../http/route.js';
import { passkeyJson, sessionJson, userJson } from '../../http/presenters/presenters.js';
import { PasskeyBody, SessionBody, UserBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';

const Base64Url = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$' });

/**
 * A `PublicKeyCredential` as JSON (`toJSON()`, WebAuthn §5.1; what @simplewebauthn/browser's
 * `startRegistration` and `startAuthentication` return). Only the outer shape is checked here; the
 * verifier checks the rest.
 */
const CredentialBody = Type.Object(
  {
    id: Base64Url(1400),
    rawId: Base64Url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      { clientDataJSON: Base64Url(8192) },
      { additionalProperties: true, description: 'AuthenticatorAttestationResponseJSON (registration) or AuthenticatorAssertionResponseJSON (sign-in)' },
    ),
    clientExtensionResults: Type.Optional(Type.Object({}, { additionalProperties: true })),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: true, $id: 'PasskeyCredential' },
);

/** `PublicKeyCredentialCreationOptionsJSON` / `PublicKeyCredentialRequestOptionsJSON` (WebAuthn §5.4, §5.5). */
const OptionsBody = (id: string, description: string) =>
  Type.Object(
    { challenge: Type.String({ description: 'base64url; answer it within `timeout` ms, once' }), timeout: Type.Optional(Type.Integer({ description: 'ms' })) },
    { additionalProperties: true, $id: id, description },
  );

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const Name = Type.String({ minLength: 1, maxLength: PASSKEY_NAME_MAX_LENGTH });

/** Passkeys (WebAuthn): registration, the list, rename and delete (session token), and sign-in (no credentials). */
export function passkeyRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/registration/options',
      operationId: 'passkeyRegistrationOptions',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Options for navigator.credentials.create() to add a passkey to the account (answer within 5 minutes, once)',
      description:
        "Pass the body to `PublicKeyCredential.parseCreationOptionsFromJSON()` (or @simplewebauthn/browser `startRegistration({ optionsJSON })`), then send the result to `POST /auth/passkeys/registration/verify`. The relying party is the host of the API address; the account's passkeys are excluded.",
      responses: { 200: OptionsBody('PasskeyCreationOptions', 'PublicKeyCredentialCreationOptionsJSON'), ...errors(401, 403) },
      handler: async ({ ctx, principal }) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = (
          await hangar.startPasskeyRegistration.execute({
            userId: principal.userId,
            secondFactor: principal.kind === 'session' ? principal.secondFactor : undefined,
          })
        ).options;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/registration/verify',
      operationId: 'passkeyRegistrationVerify',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Store the passkey the browser created from the registration options',
      errorCodes: ['PASSKEY_CHALLENGE_INVALID', 'PASSKEY_INVALID', 'PASSKEY_ALREADY_REGISTERED'],
      body: Type.Object({ credential: CredentialBody, name: Type.Optional(Name) }),
      responses: { 201: Type.Object({ passkey: PasskeyBody }), ...errors(400, 401, 403, 409) },
      handler: async ({ ctx, body, principal }) => {
        const passkey = await hangar.finishPasskeyRegistration.execute({
          userId: principal.userId,
          response: body.credential,
          name: body.name,
          sessionId: principal.kind === 'session' ? principal.sessionId : undefined,
        });
        ctx.status = 201;
        ctx.body = { passkey: passkeyJson(passkey) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/passkeys',
      operationId: 'listPasskeys',
      tag: 'auth',
      auth: 'jwt',
      summary: "The account's passkeys, oldest first",
      responses: { 200: Type.Object({ passkeys: Type.Array(PasskeyBody) }), ...errors(401, 403) },
      handler: async ({ ctx, principal }) => {
        ctx.body = { passkeys: (await hangar.listPasskeys.execute({ userId: principal.userId })).map(passkeyJson) };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/auth/passkeys/:id',
      operationId: 'renamePasskey',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Rename a passkey',
      errorCodes: ['PASSKEY_NOT_FOUND'],
      params: IdParams,
      body: Type.Object({ name: Name }),
      responses: { 200: Type.Object({ passkey: PasskeyBody }), ...errors(400, 401, 403, 404) },
      handler: async ({ ctx, params, body, principal }) => {
        ctx.body = { passkey: passkeyJson(await hangar.renamePasskey.execute({ userId: principal.userId, id: params.id, name: body.name })) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/passkeys/:id',
      operationId: 'deletePasskey',
      tag: 'auth',
      auth: 'jwt',
      summary: 'Delete a passkey; it cannot sign in from then on',
      errorCodes: ['PASSKEY_NOT_FOUND'],
      params: IdParams,
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.deletePasskey.execute({ userId: principal.userId, id: params.id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/authentication/options',
      operationId: 'passkeyAuthenticationOptions',
      tag: 'auth',
      auth: 'none',
      summary: 'Options for navigator.credentials.get() to sign in with a passkey (answer within 5 minutes, once)',
      description:
        'Without `email` the browser offers any passkey it holds for this service (discoverable credentials); with the e-mail of an account that has passkeys, only those. At most 30 a minute per client address.',
      errorCodes: ['RATE_LIMITED'],
      body: Type.Object({ email: Type.Optional(Type.String({ maxLength: 320 })) }),
      responses: { 200: OptionsBody('PasskeyRequestOptions', 'PublicKeyCredentialRequestOptionsJSON'), ...errors(400, 429) },
      handler: async ({ ctx, body }) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = (await hangar.startPasskeySignIn.execute({ email: body.email, client: ctx.state.client })).options;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/authentication/verify',
      operationId: 'passkeyAuthenticationVerify',
      tag: 'auth',
      auth: 'none',
      summary: 'Sign in with a passkey: answers as POST /auth/login does',
      description:
        'Send the `PublicKeyCredential` from `navigator.credentials.get()` (or @simplewebauthn/browser `startAuthentication`). A passkey with user verification counts as two factors: no second factor is asked.',
      errorCodes: [
        'PASSKEY_INVALID',
        'PASSKEY_CHALLENGE_INVALID',
        'PASSKEY_NOT_RECOGNISED',
        'PASSKEY_REJECTED',
        'PASSKEY_COUNTER_REGRESSED',
        'EMAIL_NOT_VERIFIED',
      ],
      body: Type.Object({ credential: CredentialBody }),
      responses: { 200: Type.Object({ user: UserBody, session: SessionBody }), ...errors(400, 401, 403) },
      handler: async ({ ctx, body }) => {
        const { user, session } = await hangar.signInWithPasskey.execute({ response: body.credential, device: ctx.state.device });
        // As for a password login: the activity log records the sign-in as the new session's first request.
        ctx.state.principal = await hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }).catch(() => undefined);
        ctx.body = { user: userJson(user, true), session: sessionJson(session) };
      },
    }),
  ];
}
