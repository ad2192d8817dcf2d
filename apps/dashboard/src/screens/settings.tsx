import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Badge, ConfirmDialog, CopyButton, messageOf, Notice, useLoad } from '../components.js';
import { formatBytes, formatDateTime, formatRelative } from '../format.js';
import type { Profile, Settings } from '../types.js';
import { PasskeysSection } from './passkeys.js';

const MIB = 1024 * 1024;
const PURPOSE: Record<string, string> = {
  routing: 'Points the name at Hangar',
  ownership: 'Proves you own the name',
  ssl_validation: 'Lets the certificate be issued',
};

/** Settings: the upload size limit, what photos keep of their metadata, the custom domain with its DNS records and statuses, and the passkeys. */
export function SettingsScreen() {
  const settings = useLoad(() => api<Settings>('/settings'), []);
  const profile = useLoad(() => api<Profile>('/profile'), []);
  const [saved, setSaved] = useState<Settings>();
  const current = saved ?? settings.data;
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {settings.error && <Notice kind="error">{settings.error}</Notice>}
      {current && (
        <>
          <UploadLimit settings={current} ceiling={profile.data?.plan.max_upload_size_bytes} onSaved={setSaved} />
          <ImageMetadata settings={current} onSaved={setSaved} />
          <CustomDomain settings={current} onSaved={setSaved} />
        </>
      )}
      <PasskeysSection />
    </section>
  );
}

function UploadLimit({ settings, ceiling, onSaved }: { settings: Settings; ceiling?: number; onSaved: (s: Settings) => void }) {
  const [value, setValue] = useState(String(+(settings.max_upload_size_bytes / MIB).toFixed(2)));
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string }>();
  const save = async (body: { max_upload_size_bytes: number | null }) => {
    try {
      const next = await api<Settings>('/settings', { method: 'PATCH', json: body });
      onSaved(next);
      setValue(String(+(next.max_upload_size_bytes / MIB).toFixed(2)));
      setMessage({ kind: 'success', text: `Saved: files up to ${formatBytes(next.max_upload_size_bytes)}.` });
    } catch (failure) {
      setMessage({ kind: 'error', text: messageOf(failure) });
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const mib = Number(value);
    if (!Number.isFinite(mib) || mib <= 0) return setMessage({ kind: 'error', text: 'Enter a size in MiB greater than 0.' });
    const bytes = Math.round(mib * MIB);
    if (ceiling !== undefined && bytes > ceiling) return setMessage({ kind: 'error', text: `Your plan allows at most ${formatBytes(ceiling)} per file.` });
    void save({ max_upload_size_bytes: bytes });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="limit-title">
      <h2 id="limit-title">Largest upload</h2>
      <p class="muted">
        Uploads above this size are refused. Now: <strong>{formatBytes(settings.max_upload_size_bytes)}</strong>
        {ceiling !== undefined && <> · your plan allows up to {formatBytes(ceiling)}</>}.
      </p>
      <div class="inline-form">
        <label>
          Size in MiB
          <input type="number" min="0.01" step="any" inputMode="decimal" value={value} onInput={(e) => setValue(e.currentTarget.value)} required />
        </label>
        <button type="submit">Save</button>
        <button type="button" class="secondary" onClick={() => void save({ max_upload_size_bytes: null })}>
          Use the service default
        </button>
      </div>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </form>
  );
}

const IMAGE_METADATA_CHOICES: { value: Settings['image_metadata']; label: string; hint: string }[] = [
  { value: 'strip_location', label: 'Remove the location', hint: 'GPS position data is removed; camera, date and orientation stay.' },
  { value: 'strip_all', label: 'Remove all metadata', hint: 'EXIF, XMP, IPTC and comments are removed; colour profiles stay.' },
  { value: 'keep', label: 'Keep everything', hint: 'Photos are stored exactly as uploaded.' },
];

/** The `image_metadata` setting: what uploads of JPEG, PNG, WebP, HEIC and AVIF photos keep (pixels are never changed). */
function ImageMetadata({ settings, onSaved }: { settings: Settings; onSaved: (s: Settings) => void }) {
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string }>();
  const choose = async (value: Settings['image_metadata']) => {
    try {
      const next = await api<Settings>('/settings', { method: 'PATCH', json: { image_metadata: value } });
      onSaved(next);
      setMessage({ kind: 'success', text: `Saved: ${IMAGE_METADATA_CHOICES.find((c) => c.value === next.image_metadata)?.label ?? next.image_metadata}.` });
    } catch (failure) {
      setMessage({ kind: 'error', text: messageOf(failure) });
    }
  };
  return (
    <div class="card" role="radiogroup" aria-labelledby="metadata-title">
      <h2 id="metadata-title">Photo metadata</h2>
      <p class="muted">What new uploads of JPEG, PNG, WebP, HEIC and AVIF photos keep. The pixels are never changed; files already stored stay as they are.</p>
      {IMAGE_METADATA_CHOICES.map((choice) => (
        <label key={choice.value} class="inline">
          <input
            type="radio"
            name="image_metadata"
            value={choice.value}
            checked={settings.image_metadata === choice.value}
            onChange={() => void choose(choice.value)}
          />
          <strong>{choice.label}</strong> <span class="muted small">{choice.hint}</span>
        </label>
      ))}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </div>
  );
}

function CustomDomain({ settings, onSaved }: { settings: Settings; onSaved: (s: Settings) => void }) {
  const [hostname, setHostname] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string }>();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const domain = settings.custom_domain;
  const patch = async (body: Record<string, unknown>, done: (s: Settings) => string) => {
    setBusy(true);
    setMessage(undefined);
    try {
      const next = await api<Settings>('/settings', { method: 'PATCH', json: body });
      onSaved(next);
      setMessage({ kind: 'success', text: done(next) });
    } catch (failure) {
      setMessage({ kind: 'error', text: messageOf(failure) });
    } finally {
      setBusy(false);
    }
  };
  const verified = domain?.verification_status === 'active' && domain.ssl_status === 'active';
  return (
    <div class="card" aria-labelledby="domain-title">
      <h2 id="domain-title">Custom domain</h2>
      <p class="muted">
        Serve your files from your own name, e.g. <code>files.example.com</code>. Public addresses now start with <code>{settings.public_url_base}</code>.
      </p>
      {domain ? (
        <>
          <p class="domain-line">
            <strong>{domain.hostname}</strong> <Badge label="Verification" value={domain.verification_status} /> <Badge label="SSL" value={domain.ssl_status} />
          </p>
          <p class="muted small">
            Checked {formatRelative(domain.updated_at)} ({formatDateTime(domain.updated_at)}).{' '}
            {verified ? 'Verified: your public addresses use this domain.' : 'Create the records below at your DNS host, then refresh.'}
          </p>
          {domain.errors.length > 0 && <Notice kind="error">{domain.errors.join(' ')}</Notice>}
          {domain.dns_records.length > 0 && (
            <div class="table-wrap">
              <table class="responsive">
                <caption class="left">DNS records to create</caption>
                <thead>
                  <tr>
                    <th scope="col">Type</th>
                    <th scope="col">Name</th>
                    <th scope="col">Value</th>
                    <th scope="col">Why</th>
                  </tr>
                </thead>
                <tbody>
                  {domain.dns_records.map((record) => (
                    <tr key={`${record.type}-${record.name}-${record.value}`}>
                      <td data-label="Type">{record.type}</td>
                      <td data-label="Name">
                        <span class="value-copy">
                          <code class="wrap">{record.name}</code> <CopyButton text={record.name} />
                        </span>
                      </td>
                      <td data-label="Value">
                        <span class="value-copy">
                          <code class="wrap">{record.value}</code> <CopyButton text={record.value} />
                        </span>
                      </td>
                      <td data-label="Why" class="muted small">
                        {PURPOSE[record.purpose] ?? record.purpose}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {domain.dns_records.some((record) => record.type === 'A' || record.type === 'AAAA') && (
            <p class="muted small" data-testid="address-record-hint">
              This service is reached at an IP address, so point your name at it with an{' '}
              {domain.dns_records.find((r) => r.type === 'A' || r.type === 'AAAA')?.type} record as shown, not a CNAME (a CNAME must name a host). If your DNS
              host asks for a target host name instead, ask the operator for one.
            </p>
          )}
          <div class="actions left">
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void patch(
                  { refresh_custom_domain: true },
                  (s) => `Checked again: verification ${s.custom_domain?.verification_status}, SSL ${s.custom_domain?.ssl_status}.`,
                )
              }
            >
              {busy ? 'Checking…' : 'Refresh status'}
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => setConfirmRemove(true)}>
              Remove domain
            </button>
          </div>
        </>
      ) : (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const name = hostname.trim().toLowerCase();
            if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name))
              return setMessage({ kind: 'error', text: 'Enter a host name such as files.example.com (no https://, port or path).' });
            void patch({ custom_domain: name }, (s) => `Added ${s.custom_domain?.hostname}. Create the DNS records, then refresh.`);
          }}
        >
          <label class="grow">
            Host name
            <input value={hostname} onInput={(e) => setHostname(e.currentTarget.value)} placeholder="files.example.com" autocomplete="off" required />
          </label>
          <button type="submit" disabled={busy}>
            Add domain
          </button>
        </form>
      )}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {confirmRemove && domain && (
        <ConfirmDialog
          title="Remove custom domain"
          message={<p>Remove {domain.hostname}? Addresses on it stop working; files stay available at their default addresses.</p>}
          confirmLabel="Remove"
          onConfirm={() => patch({ custom_domain: null }, () => `Removed ${domain.hostname}.`)}
          onClose={() => setConfirmRemove(false)}
        />
      )}
    </div>
  );
}
