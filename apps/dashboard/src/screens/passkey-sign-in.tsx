import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { ApiError, publicApi, type Session, startSession } from '../api.js';
import { Notice } from '../components.js';
import { navigate } from '../router.js';
import { ceremonyMessage } from './passkeys.js';

/**
 * "Sign in with a passkey" on the sign-in screen: POST /auth/passkeys/authentication/options (no
 * e-mail: the browser offers the passkeys it holds for this site), navigator.credentials.get(),
 * then …/verify, which answers as the password login does. Hidden where the browser has no WebAuthn.
 */
export function PasskeySignIn() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (!browserSupportsWebAuthn()) return null;
  const signIn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const optionsJSON = await publicApi<Parameters<typeof startAuthentication>[0]['optionsJSON']>('/auth/passkeys/authentication/options', {
        method: 'POST',
        json: {},
      });
      const credential = await startAuthentication({ optionsJSON });
      const result = await publicApi<{ session: Session }>('/auth/passkeys/authentication/verify', { method: 'POST', json: { credential } });
      startSession(result.session);
      navigate('/files', true);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.code === 'EMAIL_NOT_VERIFIED'
          ? 'Confirm your e-mail address first: open the link we sent you, then sign in.'
          : ceremonyMessage(failure),
      );
      setBusy(false);
    }
  };
  return (
    <div class="stack passkey-sign-in">
      <button type="button" class="secondary" onClick={signIn} disabled={busy}>
        {busy ? 'Waiting for the passkey…' : 'Sign in with a passkey'}
      </button>
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}
