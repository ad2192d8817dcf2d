import { create as createQrCode } from 'qrcode';
import { useMemo, useState } from 'preact/hooks';
import { api, signOut } from '../api.js';
import { ConfirmDialog, CopyButton, messageOf, Notice, useLoad } from '../components.js';
import { formatDateTime, formatRelative } from '../format.js';
import { navigate } from '../router.js';

interface MfaStatus {
  totp: 'off' | 'pending' | 'on';
  recovery_codes_left: number;
}

interface DeviceSession {
  id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  ip: string | null;
  current: boolean;
}

/** A QR code of `text` drawn as SVG squares (no image URL, no inline style: the dashboard's CSP stays strict). */
function QrCode({ text, label }: { text: string; label: string }) {
  const cells = useMemo(() => {
    const { modules } = createQrCode(text, { errorCorrectionLevel: 'M' });
    const squares: { x: number; y: number }[] = [];
    for (let y = 0; y < modules.size; y++) for (let x = 0; x < modules.size; x++) if (modules.get(y, x)) squares.push({ x, y });
    return { size: modules.size, squares };
  }, [text]);
  const margin = 4;
  const box = cells.size + 2 * margin;
  return (
    <svg
      class="qr-code"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${box} ${box}`}
      width="200"
      height="200"
      shape-rendering="crispEdges"
      data-testid="totp-qr"
    >
      <rect width={box} height={box} fill="#fff" />
      <path fill="#000" d={cells.squares.map((s) => `M${s.x + margin} ${s.y + margin}h1v1h-1z`).join('')} />
    </svg>
  );
}

/** Turning two-factor sign-in on (QR code, first code, recovery codes shown once) and off (with a code). */
function TwoFactor() {
  const status = useLoad(() => api<MfaStatus>('/auth/mfa'), []);
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_uri: string }>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  const codeOf = (event: Event) => {
    event.preventDefault();
    return ((new FormData(event.currentTarget as HTMLFormElement).get('code') as string | null) ?? '').trim();
  };
  const start = () => run(async () => setEnrolment(await api('/auth/mfa/totp', { method: 'POST' })));
  const confirm = (event: Event) => {
    const code = codeOf(event);
    return run(async () => {
      const result = await api<{ recovery_codes: string[] }>('/auth/mfa/totp/verify', { method: 'POST', json: { code } });
      setEnrolment(undefined);
      setRecoveryCodes(result.recovery_codes);
      status.reload();
    });
  };
  const disable = (event: Event) => {
    const code = codeOf(event);
    return run(async () => {
      await api('/auth/mfa/totp', { method: 'DELETE', json: { code } });
      setRecoveryCodes(undefined);
      status.reload();
    });
  };

  return (
    <div class="card stack" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      {status.error && <Notice kind="error">{status.error}</Notice>}
      {recoveryCodes && (
        <div class="stack" data-testid="recovery-codes">
          <Notice kind="warning">
            Two-factor sign-in is on. Keep these recovery codes somewhere safe: each one signs you in once if you lose your phone. They are shown only now.
          </Notice>
          <ul class="recovery-codes">
            {recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <p>
            <CopyButton text={recoveryCodes.join('\n')} label="Copy all codes" />{' '}
            <button type="button" class="secondary" onClick={() => setRecoveryCodes(undefined)}>
              I have saved the codes
            </button>
          </p>
        </div>
      )}
      {!recoveryCodes && status.data?.totp === 'on' && (
        <>
          <p data-testid="mfa-state">
            On. Signing in asks for the code of your authenticator app. {status.data.recovery_codes_left} recovery code
            {status.data.recovery_codes_left === 1 ? '' : 's'} left.
          </p>
          <form class="inline-form" onSubmit={disable}>
            <label class="grow">
              Current code (or a recovery code) to turn it off
              <input name="code" autocomplete="one-time-code" maxLength={64} required />
            </label>
            <button type="submit" class="danger" disabled={busy}>
              Turn off
            </button>
          </form>
        </>
      )}
      {!recoveryCodes && status.data && status.data.totp !== 'on' && !enrolment && (
        <>
          <p data-testid="mfa-state">
            Off. Add a code from an authenticator app (such as Aegis, Google Authenticator or 1Password) to every sign-in with your password.
          </p>
          <p>
            <button type="button" onClick={start} disabled={busy}>
              Set up two-factor sign-in
            </button>
          </p>
        </>
      )}
      {enrolment && (
        <div class="stack">
          <p>Scan this code with your authenticator app, or type the key into it. Then enter the 6-digit code it shows.</p>
          <QrCode text={enrolment.otpauth_uri} label="QR code for your authenticator app" />
          <div class="secret">
            <code data-testid="totp-secret">{enrolment.secret}</code>
            <CopyButton text={enrolment.secret} label="Copy key" />
          </div>
          <form class="inline-form" onSubmit={confirm}>
            <label class="grow">
              Code from the app
              <input name="code" autocomplete="one-time-code" inputMode="numeric" maxLength={64} required />
            </label>
            <button type="submit" disabled={busy}>
              Turn on
            </button>
          </form>
        </div>
      )}
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}

/** The signed-in devices, with "Sign out" for each; signing out the current one signs out here. */
function Devices() {
  const list = useLoad(() => api<{ sessions: DeviceSession[] }>('/auth/sessions'), []);
  const [ending, setEnding] = useState<DeviceSession>();
  return (
    <div class="card stack" aria-labelledby="devices-title">
      <h2 id="devices-title">Signed-in devices</h2>
      <p class="muted">A device that is not used for a while is signed out by itself.</p>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <div class="table-wrap">
          <table class="responsive" data-testid="sessions">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">IP address</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.sessions.map((session) => (
                <tr key={session.id} data-current={session.current ? 'true' : undefined}>
                  <td data-label="Device">
                    {session.user_agent ?? <span class="muted">(unknown)</span>}
                    {session.current && <strong> · this device</strong>}
                  </td>
                  <td data-label="IP address">{session.ip ?? '—'}</td>
                  <td data-label="Signed in" title={formatDateTime(session.created_at)}>
                    {formatRelative(session.created_at)}
                  </td>
                  <td data-label="Last used" title={formatDateTime(session.last_used_at)}>
                    {formatRelative(session.last_used_at)}
                  </td>
                  <td class="row-actions">
                    <button type="button" class="danger small" onClick={() => setEnding(session)}>
                      Sign out
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {ending && (
        <ConfirmDialog
          title="Sign out device"
          message={
            <p>
              {ending.current ? 'Sign out of this browser?' : `Sign out “${ending.user_agent ?? 'unknown device'}”? It must sign in again to use your account.`}
            </p>
          }
          confirmLabel="Sign out"
          onConfirm={async () => {
            await api(`/auth/sessions/${encodeURIComponent(ending.id)}`, { method: 'DELETE' });
            if (ending.current) {
              await signOut();
              navigate('/signin', true);
              return;
            }
            list.reload();
          }}
          onClose={() => setEnding(undefined)}
        />
      )}
    </div>
  );
}

/** Account security: two-factor sign-in and the signed-in devices (docs/account-security.md). */
export function SecurityScreen() {
  return (
    <section aria-labelledby="security-title" class="stack">
      <h1 id="security-title">Security</h1>
      <TwoFactor />
      <Devices />
    </section>
  );
}
