import type { ApiKeyScope } from '../api-keys/api-key-scopes.js';

/**
 * Who is calling, as established by `Authenticate` (core/accounts/authenticate.ts): a session
 * (a JWT from login) or an API key with its scopes (spec 5.5). Its own file because both
 * authentication and the scope check (core/api-keys/api-key-scopes.ts) need it.
 */
export type Principal =
  | {
      kind: 'session';
      userId: string;
      sessionId: string;
      /** Whether the session proved a second factor (Session.secondFactorAt); the admin routes ask it of an account with one. */
      secondFactor: boolean;
    }
  | { kind: 'api_key'; userId: string; apiKeyId: string; scopes: readonly ApiKeyScope[] };
