import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ConfirmDialog, CopyButton, messageOf, Notice, Pager, useLoad } from '../components.js';
import { formatDateTime, formatRelative } from '../format.js';
import type { ApiKey } from '../types.js';
import { KeyExpiry, KeyScopeFields, scopeFieldsOf, scopesText } from './key-scopes.js';

const PAGE_SIZE = 20;

/** The link ShareX copies after an upload: the preview page (`view_url`, a card in chats) or the raw file (`public_url`). */
export type SharexLink = 'view' | 'raw';

/**
 * A ShareX custom uploader (`.sxcu`, ShareX 13+) for `key`: the raw file as the body of
 * POST {base}/files?deletionUrl=true, its name in x-file-name; from the answer the address `link`
 * chooses (docs/media.md, "Link previews"), a thumbnail of the view address (`w=256&h=256&fit=inside`,
 * docs/images.md) and the signed deletion link (`deletion_url`).
 */
export function sharexConfig(base: string, key: string, link: SharexLink = 'view'): string {
  return JSON.stringify(
    {
      Version: '15.0.0',
      Name: `Hangar (${new URL(base).host})`,
      DestinationType: 'ImageUploader, TextUploader, FileUploader',
      RequestMethod: 'POST',
      RequestURL: `${base}/files?deletionUrl=true`,
      Headers: { 'X-Api-Key': key, 'x-file-name': '{filename}' },
      Body: 'Binary',
      URL: link === 'view' ? '{json:file.view_url}' : '{json:file.public_url}',
      ThumbnailURL: '{json:file.public_url}?w=256&h=256&fit=inside',
      DeletionURL: '{json:deletion_url}',
      ErrorMessage: '{json:message}',
    },
    null,
    2,
  );
}

/** A curl command uploading `photo.png` with `key`. */
export function curlCommand(base: string, key: string): string {
  return `curl -X POST '${base}/files' -H 'X-Api-Key: ${key}' -H 'Content-Type: image/png' -H 'x-file-name: photo.png' --data-binary @photo.png`;
}

function NewKey({ apiKey, onDone }: { apiKey: ApiKey & { key: string }; onDone: () => void }) {
  const base = location.origin;
  const [href, setHref] = useState<string>();
  const [link, setLink] = useState<SharexLink>('view');
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([sharexConfig(base, apiKey.key, link)], { type: 'application/json' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [apiKey.key, link]);
  const curl = curlCommand(base, apiKey.key);
  return (
    <div class="card new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Your new key “{apiKey.name}”</h2>
      <Notice kind="warning">
        Copy it now: it is shown only once. Anyone with this key can do what it allows: {scopesText(apiKey)}
        {apiKey.expires_at ? `, until ${formatDateTime(apiKey.expires_at)}` : ''}.
      </Notice>
      <div class="secret">
        <code data-testid="new-key">{apiKey.key}</code>
        <CopyButton text={apiKey.key} label="Copy key" />
      </div>
      <h3>Upload with curl</h3>
      <div class="secret">
        <code class="wrap">{curl}</code>
        <CopyButton text={curl} label="Copy command" />
      </div>
      <h3>ShareX</h3>
      <label>
        Link ShareX copies{' '}
        <select value={link} onChange={(event) => setLink(event.currentTarget.value as SharexLink)}>
          <option value="view">Preview page (chats show a card)</option>
          <option value="raw">Raw file</option>
        </select>
      </label>
      <p>
        {href && (
          <a class="button secondary" href={href} download={`hangar-${apiKey.name.replace(/[^\w.-]+/g, '-') || 'key'}.sxcu`}>
            Download ShareX configuration (.sxcu)
          </a>
        )}{' '}
        <span class="muted small">Open the file with ShareX to add Hangar as a custom uploader.</span>
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have saved the key
      </button>
    </div>
  );
}

/** API keys: create with scopes and an expiry (shown once, with curl and ShareX), list with prefix, last use, access and expiry, revoke. */
export function KeysScreen() {
  const [page, setPage] = useState(1);
  const [created, setCreated] = useState<ApiKey & { key: string }>();
  const [error, setError] = useState<string>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [news, setNews] = useState<string>();
  const list = useLoad(() => api<{ api_keys: ApiKey[]; total: number }>('/auth/api-keys', { query: { page, limit: PAGE_SIZE } }), [page]);

  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = ((new FormData(form).get('name') as string | null) ?? '').trim();
    setError(undefined);
    const fields = scopeFieldsOf(form);
    if (typeof fields === 'string') return setError(fields);
    try {
      const key = await api<ApiKey & { key: string }>('/auth/api-keys', { method: 'POST', json: { ...(name ? { name } : {}), ...fields } });
      setCreated(key);
      setNews(undefined);
      form.reset();
      list.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p class="muted">Keys let scripts and tools (curl, ShareX) upload and manage files without your password.</p>
      {created ? (
        <NewKey apiKey={created} onDone={() => setCreated(undefined)} />
      ) : (
        <form class="card inline-form" onSubmit={create}>
          <label class="grow">
            Name
            <input name="name" maxLength={100} placeholder="e.g. laptop, ShareX" required />
          </label>
          <KeyScopeFields />
          <button type="submit">Create key</button>
        </form>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {news && <Notice kind="success">{news}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.api_keys.length === 0 && <p class="empty">No keys yet.</p>}
      {list.data && list.data.api_keys.length > 0 && (
        <div class="table-wrap">
          <table class="responsive">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Access</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.api_keys.map((key) => (
                <tr key={key.id}>
                  <td data-label="Name">{key.name || <span class="muted">(no name)</span>}</td>
                  <td data-label="Prefix">
                    <code>{key.key_prefix}…</code>
                  </td>
                  <td data-label="Created" title={formatDateTime(key.created_at)}>
                    {formatRelative(key.created_at)}
                  </td>
                  <td data-label="Last used" title={formatDateTime(key.last_used_at)}>
                    {key.last_used_at ? formatRelative(key.last_used_at) : 'never'}
                  </td>
                  <td data-label="Access">{scopesText(key)}</td>
                  <td data-label="Expires">
                    <KeyExpiry apiKey={key} />
                  </td>
                  <td class="row-actions">
                    <button type="button" class="danger small" onClick={() => setRevoking(key)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={page} limit={PAGE_SIZE} total={list.data.total} onPage={setPage} />}
      <UploadUrlExample />
      {revoking && (
        <ConfirmDialog
          title="Revoke key"
          message={
            <p>
              Revoke “{revoking.name}” (<code>{revoking.key_prefix}…</code>)? Scripts using it stop working at once.
            </p>
          }
          confirmLabel="Revoke"
          onConfirm={async () => {
            await api(`/auth/api-keys/${encodeURIComponent(revoking.id)}`, { method: 'DELETE' });
            setNews(`Revoked “${revoking.name}”.`);
            if (created?.id === revoking.id) setCreated(undefined);
            list.reload();
          }}
          onClose={() => setRevoking(undefined)}
        />
      )}
    </section>
  );
}

/**
 * How an app lets its users' browsers upload without a key (docs/media.md, "Signed upload URLs"): its
 * server mints a single-use URL with the key, the browser sends the file to that URL.
 */
function UploadUrlExample() {
  const api = location.origin;
  const code = [
    '// Your server: mint a single-use upload URL with your key (the key never reaches the browser)',
    `const minted = await fetch('${api}/files/upload-url', { method: 'POST',`,
    "  headers: { 'x-api-key': process.env.HANGAR_KEY, 'content-type': 'application/json' },",
    "  body: JSON.stringify({ expires_in: 600, max_size_bytes: 10_000_000, content_types: ['image/*'] }) });",
    'const { upload_url } = await minted.json(); // hand upload_url to the browser',
    '// The browser: send the file straight to Hangar, no credential',
    "const sent = await fetch(upload_url, { method: 'PUT', body: file,",
    "  headers: { 'content-type': file.type, 'x-file-name': encodeURIComponent(file.name) } });",
    'const { file: stored } = await sent.json(); // the File: stored.file_id, stored.public_url',
    '// Large files: tus-js-client with { endpoint: upload_url }; plain HTML forms: POST multipart to it',
  ].join('\n');
  return (
    <details class="card">
      <summary>Uploads from your users’ browsers, without sharing a key</summary>
      <p class="muted">Each URL uploads one file, expires (1 minute to 1 day) and stops working when you rotate your signing key in Settings.</p>
      <pre class="code-example">
        <code>{code}</code>
      </pre>
    </details>
  );
}
