import type { ApiKey } from '../types.js';
import { formatDateTime, formatRelative } from '../format.js';

/** The scopes a key may hold, with what each allows (docs/api-keys.md). */
export const KEY_SCOPES = [
  { scope: 'files:read', label: 'Read files', hint: 'list, view and download files; share and signed links' },
  { scope: 'files:write', label: 'Upload and change files', hint: 'upload, edit details, privacy and expiry, create and remove share links' },
  { scope: 'files:delete', label: 'Delete files', hint: 'delete files, one or many' },
  { scope: 'account:read', label: 'Read the account', hint: 'profile, plan, usage, settings, activity' },
  { scope: 'webhooks:manage', label: 'Manage webhooks', hint: 'add, change, test and delete webhook endpoints, read their delivery log' },
] as const;

/** Longest lifetime of an expiring key, in days (the service refuses more). */
export const MAX_KEY_LIFETIME_DAYS = 366;

/** Expiry choices of the creation form, in days (0: never). */
const EXPIRY_CHOICES = [
  { days: 0, label: 'Never' },
  { days: 7, label: 'In 7 days' },
  { days: 30, label: 'In 30 days' },
  { days: 90, label: 'In 90 days' },
  { days: 365, label: 'In a year' },
];

/** The scope checkboxes (all checked: a full-access key) and the expiry choice of the key creation form. */
export function KeyScopeFields() {
  return (
    <>
      <fieldset class="grow key-scopes">
        <legend>What the key may do</legend>
        {KEY_SCOPES.map(({ scope, label, hint }) => (
          <label key={scope} class="inline key-scope">
            <input type="checkbox" name="scopes" value={scope} defaultChecked />
            {label} <span class="muted small">({hint})</span>
          </label>
        ))}
        <p class="muted small">A key with every box ticked may also change settings. Keys never manage other keys.</p>
      </fieldset>
      <label>
        Expires
        <select name="expires_in_days" defaultValue="0">
          {EXPIRY_CHOICES.map(({ days, label }) => (
            <option key={days} value={String(days)}>
              {label}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/**
 * The JSON body fields for the form's scopes and expiry: `scopes` only when not every box is ticked
 * (the default is every scope), `expires_at` only for an expiring key.
 * @returns an error sentence instead when no box is ticked
 */
export function scopeFieldsOf(form: HTMLFormElement, now = Date.now()): { scopes?: string[]; expires_at?: string } | string {
  const data = new FormData(form);
  const scopes = data.getAll('scopes').map(String);
  if (scopes.length === 0) return 'Tick at least one thing the key may do.';
  const days = Number(data.get('expires_in_days') ?? 0);
  return {
    ...(scopes.length === KEY_SCOPES.length ? {} : { scopes }),
    ...(days > 0 ? { expires_at: new Date(now + Math.min(days, MAX_KEY_LIFETIME_DAYS) * 86_400_000).toISOString() } : {}),
  };
}

/** "Full access", or the scopes' short labels. */
export function scopesText(key: Pick<ApiKey, 'scopes'>): string {
  const scopes = key.scopes ?? KEY_SCOPES.map((s) => s.scope);
  if (scopes.length === KEY_SCOPES.length) return 'Full access';
  return KEY_SCOPES.filter((s) => scopes.includes(s.scope))
    .map((s) => s.scope)
    .join(', ');
}

/** The expiry cell: "never", "expired", or when it ends. */
export function KeyExpiry({ apiKey }: { apiKey: Pick<ApiKey, 'expires_at' | 'expired'> }) {
  if (!apiKey.expires_at) return <span class="muted">never</span>;
  if (apiKey.expired)
    return (
      <strong class="badge-bad" title={formatDateTime(apiKey.expires_at)}>
        expired
      </strong>
    );
  return <span title={formatDateTime(apiKey.expires_at)}>{formatRelative(apiKey.expires_at)}</span>;
}
