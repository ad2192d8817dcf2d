import { browserSupportsWebAuthn, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ConfirmDialog, messageOf, Notice, useLoad } from '../components.js';
import { formatDateTime, formatRelative } from '../format.js';

/** A passkey as GET /auth/passkeys lists it. */
export interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** What a failed or cancelled browser ceremony means for the user, in a sentence. */
export function ceremonyMessage(failure: unknown): string {
  if (failure instanceof WebAuthnError && failure.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED')
    return 'This authenticator holds a passkey for your account already.';
  if (failure instanceof Error && failure.name === 'NotAllowedError') return 'The passkey request was cancelled or timed out.';
  return messageOf(failure);
}

function PasskeyRow({ passkey, onChanged, onDelete }: { passkey: Passkey; onChanged: (news: string) => void; onDelete: () => void }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string>();
  const save = async (event: Event) => {
    event.preventDefault();
    const name = ((new FormData(event.currentTarget as HTMLFormElement).get('name') as string | null) ?? '').trim();
    try {
      await api(`/auth/passkeys/${encodeURIComponent(passkey.id)}`, { method: 'PATCH', json: { name } });
      setEditing(false);
      setError(undefined);
      onChanged(`Renamed to “${name}”.`);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <tr>
      <td data-label="Name">
        {editing ? (
          <form class="inline-form" onSubmit={save}>
            <input name="name" aria-label="New name" maxLength={100} required defaultValue={passkey.name} />
            <button type="submit" class="small">
              Save
            </button>
            <button type="button" class="secondary small" onClick={() => setEditing(false)}>
              Cancel
            </button>
            {error && <Notice kind="error">{error}</Notice>}
          </form>
        ) : (
          passkey.name
        )}
      </td>
      <td data-label="Added" title={formatDateTime(passkey.created_at)}>
        {formatRelative(passkey.created_at)}
      </td>
      <td data-label="Last used" title={formatDateTime(passkey.last_used_at)}>
        {passkey.last_used_at ? formatRelative(passkey.last_used_at) : 'never'}
      </td>
      <td class="row-actions">
        {!editing && (
          <button type="button" class="secondary small" onClick={() => setEditing(true)} aria-label={`Rename ${passkey.name}`}>
            Rename
          </button>
        )}{' '}
        <button type="button" class="danger small" onClick={onDelete} aria-label={`Delete ${passkey.name}`}>
          Delete
        </button>
      </td>
    </tr>
  );
}

/**
 * The Passkeys section of the settings: add one (POST /auth/passkeys/registration/options, the browser's
 * navigator.credentials.create(), then …/verify), list, rename and delete. A passkey signs in
 * without the password, from the sign-in screen.
 */
export function PasskeysSection() {
  const list = useLoad(() => api<{ passkeys: Passkey[] }>('/auth/passkeys'), []);
  const [error, setError] = useState<string>();
  const [news, setNews] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Passkey>();
  const supported = browserSupportsWebAuthn();

  const add = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = ((new FormData(form).get('name') as string | null) ?? '').trim();
    setBusy(true);
    setError(undefined);
    setNews(undefined);
    try {
      const optionsJSON = await api<Parameters<typeof startRegistration>[0]['optionsJSON']>('/auth/passkeys/registration/options', { method: 'POST' });
      const credential = await startRegistration({ optionsJSON });
      const { passkey } = await api<{ passkey: Passkey }>('/auth/passkeys/registration/verify', {
        method: 'POST',
        json: name ? { credential, name } : { credential },
      });
      setNews(`Added the passkey “${passkey.name}”. You can sign in with it instead of your password.`);
      form.reset();
      list.reload();
    } catch (failure) {
      setError(ceremonyMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p class="muted">
        A passkey signs you in with your device’s screen lock, fingerprint or security key instead of your password. It is two factors in one: no code is asked
        after it.
      </p>
      {supported ? (
        <form class="inline-form" onSubmit={add}>
          <label class="grow">
            Passkey name
            <input name="name" maxLength={100} placeholder="e.g. laptop, phone" />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Waiting for the passkey…' : 'Add a passkey'}
          </button>
        </form>
      ) : (
        <Notice kind="warning">This browser cannot create passkeys here (it needs WebAuthn over HTTPS, or localhost).</Notice>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {news && <Notice kind="success">{news}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.passkeys.length === 0 && <p class="empty">No passkeys yet.</p>}
      {list.data && list.data.passkeys.length > 0 && (
        <div class="table-wrap">
          <table class="responsive" data-testid="passkeys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.passkeys.map((passkey) => (
                <PasskeyRow
                  key={passkey.id}
                  passkey={passkey}
                  onChanged={(message) => {
                    setNews(message);
                    list.reload();
                  }}
                  onDelete={() => setDeleting(passkey)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete passkey"
          message={<p>Delete “{deleting.name}”? It cannot sign in to this account any more. Remove it from the device as well.</p>}
          confirmLabel="Delete"
          onConfirm={async () => {
            await api(`/auth/passkeys/${encodeURIComponent(deleting.id)}`, { method: 'DELETE' });
            setNews(`Deleted “${deleting.name}”.`);
            list.reload();
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}
