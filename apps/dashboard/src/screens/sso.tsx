import { useEffect, useState } from 'preact/hooks';
import { publicApi, type Session, startSession } from '../api.js';
import { messageOf, Notice } from '../components.js';
import { navigate } from '../router.js';

/** GET /auth/providers: the single sign-on provider (null when off) and who may register. */
export interface SignInProviders {
  oidc: { name: string; start_url: string } | null;
  registration: 'open' | 'invite' | 'closed';
}

let cached: Promise<SignInProviders> | undefined;

/** The server's sign-in providers, asked once per page load; undefined while loading or when the request failed. */
export function useSignInProviders(): SignInProviders | undefined {
  const [providers, setProviders] = useState<SignInProviders>();
  useEffect(() => {
    cached ??= publicApi<SignInProviders>('/auth/providers').catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
    let live = true;
    cached.then((value) => live && setProviders(value)).catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return providers;
}

/** "Sign in with <name>" when single sign-on is on: a plain link, the browser goes to the provider and back. `invite` goes along for a first sign-in. */
export function SsoButton({ providers, invite }: { providers?: SignInProviders; invite?: string }) {
  if (!providers?.oidc) return null;
  const href = invite ? `${providers.oidc.start_url}?${new URLSearchParams({ invite }).toString()}` : providers.oidc.start_url;
  return (
    <div class="stack">
      <p class="muted small">or</p>
      <a class="button secondary" href={href}>
        Sign in with {providers.oidc.name}
      </a>
    </div>
  );
}

/**
 * What the callback's stable `error` codes mean to the user (the server sends no message in the URL:
 * its detail goes to the server's log).
 */
const SSO_ERRORS: Record<string, string> = {
  OIDC_NOT_CONFIGURED: 'Single sign-on is not set up on this server.',
  OIDC_PROVIDER_ERROR: 'The identity provider could not be reached. Try again later.',
  OIDC_FAILED: 'The identity provider refused the sign-in, or it could not be verified.',
  OIDC_STATE_INVALID: 'This sign-in link is unknown or expired. Start again.',
  OIDC_EMAIL_UNVERIFIED: 'The identity provider has not verified your e-mail address.',
  RATE_LIMITED: 'Too many sign-in attempts. Wait a minute and try again.',
  REGISTRATION_CLOSED: 'This server does not accept new accounts.',
  INVITE_REQUIRED: 'New accounts need an invite on this server: use the link from your invitation.',
  INVITE_INVALID: 'This invite is not valid: it is unknown, already used, revoked or expired.',
};

/**
 * Where the provider's callback lands (`/#/sso?code=…` or `?error=<code>`): exchanges the
 * single-use code for a session (POST /auth/oidc/exchange) and removes it from the address bar and
 * history at once; shows the refusal otherwise.
 */
export function SsoLanding({ params }: { params: URLSearchParams }) {
  const code = params.get('code');
  const [error, setError] = useState<string | undefined>(code ? undefined : (SSO_ERRORS[params.get('error') ?? ''] ?? 'The sign-in did not complete.'));
  useEffect(() => {
    if (!code) return;
    history.replaceState(null, '', `${location.pathname}${location.search}#/sso`);
    publicApi<{ session: Session }>('/auth/oidc/exchange', { method: 'POST', json: { code } })
      .then((result) => {
        startSession(result.session);
        navigate('/files', true);
      })
      .catch((failure: unknown) => setError(messageOf(failure)));
  }, [code]);
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">Hangar</p>
        <h1>{error ? 'Sign-in failed' : 'Signing in…'}</h1>
        {error ? (
          <Notice kind="error">{error}</Notice>
        ) : (
          <p class="loading" role="status">
            One moment…
          </p>
        )}
        <p class="auth-footer">
          <a href="#/signin">Back to sign in</a>
        </p>
      </div>
    </main>
  );
}
