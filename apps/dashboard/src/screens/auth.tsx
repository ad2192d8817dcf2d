import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, endSession, isSignedIn, publicApi, signIn } from '../api.js';
import { messageOf, Notice } from '../components.js';
import { navigate } from '../router.js';
import { PasskeySignIn } from './passkey-sign-in.js';
import { MfaStep } from './mfa-sign-in.js';
import { SsoButton, useSignInProviders } from './sso.js';

/** Minimum password length (spec 4.2). */
const MIN_PASSWORD = 6;

function AuthCard({ title, children, footer }: { title: string; children: ComponentChildren; footer?: ComponentChildren }) {
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">Hangar</p>
        <h1>{title}</h1>
        {children}
        {footer && <p class="auth-footer">{footer}</p>}
      </div>
    </main>
  );
}

function formValues(event: Event): Record<string, string> {
  event.preventDefault();
  return Object.fromEntries([...new FormData(event.currentTarget as HTMLFormElement)].map(([k, v]) => [k, v as string]));
}

/** The service mails at most one e-mail of a kind to an address per minute (EMAIL_MIN_INTERVAL_MS). */
const EMAIL_INTERVAL_MS = 60_000;

/** Whole seconds until a minute has passed since `askedAt` (0: now), ticking every second while above 0. */
function useWaitSeconds(askedAt: number | undefined): number {
  const left = () => (askedAt === undefined ? 0 : Math.max(0, Math.ceil((askedAt + EMAIL_INTERVAL_MS - Date.now()) / 1000)));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    if (askedAt === undefined) return;
    const timer = setInterval(() => {
      const now = left();
      setSeconds(now);
      if (now === 0) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [askedAt]);
  return seconds;
}

/**
 * "Resend confirmation e-mail" (POST /auth/resend-confirmation, `redirect_to` back here as at
 * registration). The service mails at most one confirmation per address per minute and answers
 * the same either way (it never says whether the address has an account), so this shows its
 * answer ("…if you asked less than a minute ago, wait a minute and try again") rather than claiming
 * an e-mail was sent; and within a minute of this page's own request (`askedAt`: the registration,
 * or the last resend) it says how long to wait instead of offering to send, since that e-mail
 * would be held back.
 */
function ResendConfirmation({ email, askedAt: askedFirst }: { email: string; askedAt?: number }) {
  const [answer, setAnswer] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [askedAt, setAskedAt] = useState(askedFirst);
  const wait = useWaitSeconds(askedAt);
  const resend = async () => {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    const body = { email, redirect_to: `${location.origin}/` };
    try {
      const result = await publicApi<{ message: string }>('/auth/resend-confirmation', { method: 'POST', json: body }).catch((failure: unknown) => {
        if (failure instanceof ApiError && failure.code === 'INVALID_REDIRECT_URL') {
          return publicApi<{ message: string }>('/auth/resend-confirmation', { method: 'POST', json: { email } });
        }
        throw failure;
      });
      setAnswer(result.message);
      setAskedAt(Date.now());
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack">
      <button type="button" class="secondary" onClick={resend} disabled={busy || wait > 0}>
        {busy ? 'Sending…' : wait > 0 ? `Resend confirmation e-mail (in ${wait} s)` : 'Resend confirmation e-mail'}
      </button>
      {answer && <Notice kind="info">{answer}</Notice>}
      {wait > 0 && <Notice kind="warning">An e-mail to this address was asked for less than a minute ago: wait {wait} s before asking for another.</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}

/** Sign-in form (POST /auth/login); an unconfirmed address gets a hint to check the e-mail and a way to get a new link. */
export function SignIn({ notice }: { notice?: string }) {
  const [error, setError] = useState<string>();
  const [unconfirmed, setUnconfirmed] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [mfaToken, setMfaToken] = useState<string>();
  const providers = useSignInProviders();
  const submit = async (event: Event) => {
    const { email, password } = formValues(event);
    setBusy(true);
    setError(undefined);
    setUnconfirmed(undefined);
    try {
      const second = await signIn(email.trim(), password);
      if (second) {
        setMfaToken(second.mfaToken);
        setBusy(false);
        return;
      }
      navigate('/files', true);
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'EMAIL_NOT_VERIFIED') setUnconfirmed(email.trim());
      setError(
        failure instanceof ApiError && failure.code === 'EMAIL_NOT_VERIFIED'
          ? 'Confirm your e-mail address first: open the link we sent you, then sign in.'
          : failure instanceof ApiError && failure.code === 'INVALID_CREDENTIALS'
            ? 'Wrong e-mail address or password.'
            : messageOf(failure),
      );
      setBusy(false);
    }
  };
  if (mfaToken) {
    return (
      <AuthCard title="Two-factor sign-in">
        <MfaStep
          mfaToken={mfaToken}
          onRestart={(message) => {
            setMfaToken(undefined);
            setError(message);
          }}
        />
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Sign in"
      footer={
        <>
          No account yet? <a href="#/register">Create one</a> · <a href="#/forgot">Forgot your password?</a>
        </>
      }
    >
      {notice && <Notice kind="success">{notice}</Notice>}
      <form onSubmit={submit} class="stack">
        <label>
          E-mail address
          <input name="email" type="email" autocomplete="email" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {error && <Notice kind="error">{error}</Notice>}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <PasskeySignIn />
      <SsoButton providers={providers} />
      {unconfirmed && <ResendConfirmation email={unconfirmed} />}
    </AuthCard>
  );
}

/**
 * Registration (POST /auth/register) with `redirect_to` pointing back here, so the confirmation
 * link lands signed in on the dashboard. Then the "check your e-mail" screen. Honours REGISTRATION
 * (GET /auth/providers): with `invite`, the invite token from the link (`#/register?invite=…`) goes
 * along, and without one the page says registration is by invitation; with `closed`, it says so.
 */
export function Register({ invite }: { invite?: string } = {}) {
  const [error, setError] = useState<string>();
  const [sentTo, setSentTo] = useState<string>();
  const [askedAt, setAskedAt] = useState<number>();
  const [busy, setBusy] = useState(false);
  const providers = useSignInProviders();
  const submit = async (event: Event) => {
    const { email, password, confirm } = formValues(event);
    if (password.length < MIN_PASSWORD) return setError(`The password needs at least ${MIN_PASSWORD} characters.`);
    if (password !== confirm) return setError('The two passwords differ.');
    setBusy(true);
    setError(undefined);
    const body = { email: email.trim(), password, redirect_to: `${location.origin}/`, ...(invite ? { invite } : {}) };
    try {
      await publicApi('/auth/register', { method: 'POST', json: body }).catch((failure: unknown) => {
        // Served under a name the server does not list in ALLOWED_REDIRECT_URLS: register without
        // it (the link then lands on the dashboard at PUBLIC_API_URL).
        if (failure instanceof ApiError && failure.code === 'INVALID_REDIRECT_URL') {
          return publicApi('/auth/register', { method: 'POST', json: { email: body.email, password, ...(invite ? { invite } : {}) } });
        }
        throw failure;
      });
      setAskedAt(Date.now());
      setSentTo(body.email);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  if (sentTo) {
    return (
      <AuthCard title="Check your e-mail" footer={<a href="#/signin">Back to sign in</a>}>
        <p>
          We are sending an e-mail to <strong>{sentTo}</strong>. Open the link in it to confirm your address: it signs you in here.
        </p>
        <p class="muted">Nothing arrived after a few minutes? Check the spam folder, or ask for a new link (at most one a minute).</p>
        <ResendConfirmation email={sentTo} askedAt={askedAt} />
      </AuthCard>
    );
  }
  if (providers?.registration === 'closed' || (providers?.registration === 'invite' && !invite)) {
    return (
      <AuthCard
        title="Create an account"
        footer={
          <>
            Already registered? <a href="#/signin">Sign in</a>
          </>
        }
      >
        <Notice kind="info">
          {providers.registration === 'closed'
            ? 'This server does not accept new accounts.'
            : 'Accounts on this server are by invitation only: open the invite link you received.'}
        </Notice>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Create an account"
      footer={
        <>
          Already registered? <a href="#/signin">Sign in</a>
        </>
      }
    >
      {invite && <Notice kind="info">You were invited: the account you create uses this invitation.</Notice>}
      <form onSubmit={submit} class="stack">
        <label>
          E-mail address
          <input name="email" type="email" autocomplete="email" required />
        </label>
        <label>
          Password <span class="muted">(at least {MIN_PASSWORD} characters)</span>
          <input name="password" type="password" autocomplete="new-password" minLength={MIN_PASSWORD} required />
        </label>
        <label>
          Password again
          <input name="confirm" type="password" autocomplete="new-password" minLength={MIN_PASSWORD} required />
        </label>
        {error && <Notice kind="error">{error}</Notice>}
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <SsoButton providers={providers} invite={invite} />
    </AuthCard>
  );
}

/** Forgot password (POST /auth/forgot-password): the same answer whether the account exists or not. */
export function ForgotPassword() {
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const submit = async (event: Event) => {
    const { email } = formValues(event);
    try {
      const result = await publicApi<{ message: string }>('/auth/forgot-password', { method: 'POST', json: { email: email.trim() } });
      setDone(result.message);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <AuthCard title="Reset your password" footer={<a href="#/signin">Back to sign in</a>}>
      {done ? (
        <Notice kind="success">{done}</Notice>
      ) : (
        <form onSubmit={submit} class="stack">
          <label>
            E-mail address
            <input name="email" type="email" autocomplete="email" required />
          </label>
          {error && <Notice kind="error">{error}</Notice>}
          <button type="submit">Send reset link</button>
        </form>
      )}
      <p class="muted">
        Have a reset token? <a href="#/reset">Set a new password</a>.
      </p>
    </AuthCard>
  );
}

/**
 * Sets a new password with the token from the mailed link (`#/reset?token=…`, POST
 * /auth/reset-password): the password twice, and "also revoke all API keys", checked by default
 * (`revoke_api_keys`). Every session ends, so a signed-in tab is signed out once it succeeds.
 */
export function ResetPassword({ token }: { token: string }) {
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const values = formValues(event);
    setError(undefined);
    if (values.password.length < MIN_PASSWORD) return setError(`The password needs at least ${MIN_PASSWORD} characters.`);
    if (values.password !== values.confirm) return setError('The two passwords differ.');
    const revoke = (form.elements.namedItem('revoke_api_keys') as HTMLInputElement).checked;
    setBusy(true);
    try {
      const result = await publicApi<{ message: string }>('/auth/reset-password', {
        method: 'POST',
        json: { token: values.token.trim(), password: values.password, revoke_api_keys: revoke },
      });
      if (isSignedIn()) endSession();
      setDone(result.message);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthCard title="Choose a new password" footer={<a href="#/signin">Back to sign in</a>}>
      {done ? (
        <>
          <Notice kind="success">{done}</Notice>
          <p>
            <a class="button" href="#/signin">
              Sign in with the new password
            </a>
          </p>
        </>
      ) : (
        <form onSubmit={submit} class="stack">
          {token ? (
            <input type="hidden" name="token" value={token} />
          ) : (
            <label>
              Token from the e-mail
              <input name="token" required autocomplete="off" />
            </label>
          )}
          <label>
            New password <span class="muted">(at least {MIN_PASSWORD} characters)</span>
            <input name="password" type="password" autocomplete="new-password" minLength={MIN_PASSWORD} required />
          </label>
          <label>
            New password again
            <input name="confirm" type="password" autocomplete="new-password" minLength={MIN_PASSWORD} required />
          </label>
          <div>
            <label class="inline">
              <input name="revoke_api_keys" type="checkbox" defaultChecked />
              Also revoke all API keys
            </label>
            <p class="muted small hint">
              Every session is signed out. API keys keep working unless you revoke them here: do it if one may have been exposed (scripts and upload tools then
              need a new key).
            </p>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Set password'}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
