import { useState } from 'preact/hooks';
import { ApiError, completeMfaSignIn } from '../api.js';
import { messageOf, Notice } from '../components.js';
import { navigate } from '../router.js';

/**
 * The second step of a sign-in with two-factor sign-in on (POST /auth/mfa/verify): the code of the
 * authenticator app, or one of the recovery codes. A wrong code may be retried; an expired step
 * (5 minutes) goes back to the password form.
 */
export function MfaStep({ mfaToken, onRestart }: { mfaToken: string; onRestart: (message: string) => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const code = ((new FormData(event.currentTarget as HTMLFormElement).get('code') as string | null) ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      await completeMfaSignIn(mfaToken, code);
      navigate('/files', true);
    } catch (failure) {
      setBusy(false);
      if (failure instanceof ApiError && failure.code === 'INVALID_MFA_TOKEN') return onRestart('The sign-in took too long: enter your password again.');
      setError(
        failure instanceof ApiError && failure.code === 'INVALID_MFA_CODE' ? 'This code is wrong or already used. Enter the current code.' : messageOf(failure),
      );
    }
  };
  return (
    <form onSubmit={submit} class="stack">
      <p class="muted">Enter the 6-digit code of your authenticator app, or one of your recovery codes.</p>
      <label>
        Code
        <input name="code" autocomplete="one-time-code" inputMode="text" maxLength={64} required autoFocus />
      </label>
      {error && <Notice kind="error">{error}</Notice>}
      <button type="submit" disabled={busy}>
        {busy ? 'Checking…' : 'Sign in'}
      </button>
    </form>
  );
}
