import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { copyText, messageOf, Notice, useLoad } from '../components.js';
import { formatDateTime } from '../format.js';
import type { HangarFile, Share } from '../types.js';

/** Lifetimes offered for signed links and share links, in seconds. */
const LIFETIMES: [string, number][] = [
  ['1 hour', 3600],
  ['1 day', 86_400],
  ['7 days', 604_800],
];
/** Expiries offered for a file (and at upload), in seconds; 0: never. */
export const FILE_EXPIRIES: [string, number][] = [
  ['Never', 0],
  ['1 hour', 3600],
  ['1 day', 86_400],
  ['7 days', 604_800],
  ['30 days', 2_592_000],
];

const path = (file: HangarFile, rest = '') => `/files/${encodeURIComponent(file.file_id)}${rest}`;

/**
 * The private-file controls (docs/private-files.md) in a file's details: rename, public/private, expiry, view and download
 * counts, a signed link copied with an expiry picker, and share links (create with password,
 * expiry and download limit; list with counts; revoke). `onChanged` receives the File object the
 * API answered after a change.
 */
export function FileControls({ file, onChanged }: { file: HangarFile; onChanged: (file: HangarFile) => void }) {
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState(file.name ?? '');
  const [expiry, setExpiry] = useState(0);
  const patch = async (json: Record<string, unknown>) => {
    setProblem(undefined);
    try {
      onChanged(await api<HangarFile>(path(file), { method: 'PATCH', json }));
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <div class="file-controls">
      {problem && <Notice kind="error">{problem}</Notice>}
      <p class="muted small">
        Views {file.view_count ?? 0} · Downloads {file.download_count ?? 0}
      </p>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void patch({ name: name.trim() === '' ? null : name });
        }}
      >
        <label>
          Name <input value={name} maxLength={255} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="secondary small">
          Rename
        </button>
      </form>
      <label class="inline">
        <input type="checkbox" checked={file.is_public ?? false} onChange={() => void patch({ is_public: !file.is_public })} /> Public (view and download
        addresses work)
      </label>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void patch({ expires_at: expiry === 0 ? null : new Date(Date.now() + expiry * 1000).toISOString() });
        }}
      >
        <span>{file.expires_at ? `Deleted automatically ${formatDateTime(file.expires_at)}` : 'Kept until deleted'}</span>
        <label>
          Delete after{' '}
          <select value={String(expiry)} onChange={(event) => setExpiry(Number((event.target as HTMLSelectElement).value))}>
            {FILE_EXPIRIES.map(([label, seconds]) => (
              <option value={String(seconds)}>{label}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="secondary small">
          Set expiry
        </button>
      </form>
      <SignedLink file={file} />
      <ShareLinks file={file} />
    </div>
  );
}

/** Copies a signed link (POST /files/:id/signed-url) valid for the lifetime picked. */
function SignedLink({ file }: { file: HangarFile }) {
  const [lifetime, setLifetime] = useState(3600);
  const [link, setLink] = useState<{ url: string; expiresAt: string; copied: boolean }>();
  const [problem, setProblem] = useState<string>();
  const make = async () => {
    setProblem(undefined);
    try {
      const signed = await api<{ signed_url: string; expires_at: string }>(path(file, '/signed-url'), { method: 'POST', json: { expires_in: lifetime } });
      setLink({ url: signed.signed_url, expiresAt: signed.expires_at, copied: await copyText(signed.signed_url) });
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <fieldset class="signed-link">
      <legend>Signed link</legend>
      <label>
        Valid for{' '}
        <select value={String(lifetime)} onChange={(event) => setLifetime(Number((event.target as HTMLSelectElement).value))}>
          {LIFETIMES.map(([label, seconds]) => (
            <option value={String(seconds)}>{label}</option>
          ))}
        </select>
      </label>{' '}
      <button type="button" class="secondary small" onClick={() => void make()}>
        Copy signed link
      </button>
      {problem && <Notice kind="error">{problem}</Notice>}
      {link && (
        <p class="small">
          {link.copied ? 'Copied: ' : ''}
          <a href={link.url} target="_blank" rel="noopener noreferrer" class="signed-url">
            {link.url}
          </a>{' '}
          <span class="muted">(until {formatDateTime(link.expiresAt)})</span>
        </p>
      )}
    </fieldset>
  );
}

/** Share links of the file: create, list with counts, revoke. */
function ShareLinks({ file }: { file: HangarFile }) {
  const shares = useLoad(() => api<{ shares: Share[] }>(path(file, '/shares')), [file.file_id]);
  const [password, setPassword] = useState('');
  const [maxDownloads, setMaxDownloads] = useState('');
  const [lifetime, setLifetime] = useState(0);
  const [problem, setProblem] = useState<string>();
  const create = async () => {
    setProblem(undefined);
    const json: Record<string, unknown> = {};
    if (password !== '') json.password = password;
    if (maxDownloads !== '') json.max_downloads = Number(maxDownloads);
    if (lifetime > 0) json.expires_at = new Date(Date.now() + lifetime * 1000).toISOString();
    try {
      await api(path(file, '/shares'), { method: 'POST', json });
      setPassword('');
      setMaxDownloads('');
      shares.reload();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const revoke = async (share: Share) => {
    try {
      await api(`/shares/${encodeURIComponent(share.share_id)}`, { method: 'DELETE' });
      shares.reload();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <fieldset class="share-links">
      <legend>Share links</legend>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <label>
          Password (optional){' '}
          <input
            type="password"
            value={password}
            maxLength={1024}
            autoComplete="new-password"
            onInput={(event) => setPassword((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Max downloads <input type="number" min={1} value={maxDownloads} onInput={(event) => setMaxDownloads((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Expires{' '}
          <select value={String(lifetime)} onChange={(event) => setLifetime(Number((event.target as HTMLSelectElement).value))}>
            {FILE_EXPIRIES.map(([label, seconds]) => (
              <option value={String(seconds)}>{label}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="secondary small">
          Create share link
        </button>
      </form>
      {problem && <Notice kind="error">{problem}</Notice>}
      {shares.data && shares.data.shares.length > 0 && (
        <ul class="shares" aria-label="Share links">
          {shares.data.shares.map((share) => (
            <li key={share.share_id}>
              <a href={share.url} target="_blank" rel="noopener noreferrer">
                {share.url}
              </a>{' '}
              <span class="muted small">
                {share.downloads}
                {share.max_downloads === null ? '' : ` of ${share.max_downloads}`} downloads
                {share.has_password ? ' · password' : ''}
                {share.expires_at ? ` · until ${formatDateTime(share.expires_at)}` : ''}
              </span>{' '}
              <button type="button" class="secondary small" onClick={() => void copyText(share.url)}>
                Copy
              </button>{' '}
              <button type="button" class="danger small" onClick={() => void revoke(share)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
