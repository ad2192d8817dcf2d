import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Notice, useLoad } from '../components.js';
import { formatBytes, formatDateTime, formatRelative } from '../format.js';
import type { ApiKey, LogEntry } from '../types.js';

const PAGE_SIZE = 25;

/**
 * Activity: the account's actions (uploads, deletes, keys, settings, sign-ins: `GET /logs?kind=actions`)
 * by default, reads too on request (`kind=all`), as a table paged by the stable cursor the API hands
 * out (`before` = the previous page's `next_cursor`), so requests logged meanwhile never repeat rows.
 */
export function ActivityScreen() {
  const [withReads, setWithReads] = useState(false);
  // The cursors of the pages shown so far: [] is the newest page; the last one is the current page's.
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const logs = useLoad(
    () =>
      api<{ logs: LogEntry[]; total: number; next_cursor: string | null }>('/logs', {
        query: { limit: PAGE_SIZE, kind: withReads ? 'all' : 'actions', before },
      }),
    [withReads, before],
  );
  const keys = useLoad(() => api<{ api_keys: ApiKey[] }>('/auth/api-keys', { query: { limit: 100 } }), []);
  const keyName = (entry: LogEntry) => {
    if (!entry.metadata.api_key_id) return entry.metadata.auth === 'jwt' ? 'Dashboard session' : '—';
    const key = keys.data?.api_keys.find((k) => k.id === entry.metadata.api_key_id);
    return key ? `${key.name} (${key.key_prefix}…)` : 'Revoked key';
  };
  const pageNumber = cursors.length + 1;
  const pages = logs.data ? Math.max(1, Math.ceil(logs.data.total / PAGE_SIZE)) : 1;
  return (
    <section aria-labelledby="activity-title">
      <div class="screen-head">
        <h1 id="activity-title">Activity</h1>
        <button
          type="button"
          class="secondary small"
          onClick={() => {
            if (cursors.length > 0) setCursors([]);
            else logs.reload();
          }}
        >
          Refresh
        </button>
      </div>
      <p class="muted">
        {withReads ? 'Every authenticated API request' : 'What changed your account: uploads, deletes, API keys, settings and sign-ins'}, newest first. New
        entries appear within a few seconds.
      </p>
      <label class="inline">
        <input
          type="checkbox"
          checked={withReads}
          onChange={(event) => {
            setWithReads(event.currentTarget.checked);
            setCursors([]);
          }}
        />
        Include reads (listing and viewing files, this dashboard’s own requests)
      </label>
      {logs.error && <Notice kind="error">{logs.error}</Notice>}
      {logs.data && logs.data.logs.length === 0 && <p class="empty">No activity yet.</p>}
      {logs.data && logs.data.logs.length > 0 && (
        <div class="table-wrap">
          <table class="log-table responsive">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Method</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">Key used</th>
              </tr>
            </thead>
            <tbody>
              {logs.data.logs.map((entry) => (
                <tr key={entry.id}>
                  <td class="log-time">
                    <time dateTime={entry.created_at} title={formatRelative(entry.created_at)}>
                      {formatDateTime(entry.created_at, true)}
                    </time>
                  </td>
                  <td class="log-method">
                    <code>{entry.method}</code>
                  </td>
                  <td class="log-path">
                    <code class="wrap">{entry.path}</code>
                  </td>
                  <td class="log-status">
                    <span class={`status status-${Math.floor(entry.status_code / 100)}xx`}>{entry.status_code}</span>
                  </td>
                  <td class="log-size" data-label="Size">
                    {entry.request_size_bytes === null ? '—' : formatBytes(entry.request_size_bytes)}
                  </td>
                  <td class="log-key" data-label="Key">
                    {keyName(entry)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {logs.data && (cursors.length > 0 || logs.data.next_cursor) && (
        <nav class="pager" aria-label="Pages">
          <button type="button" class="secondary" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
          <span>
            Page {pageNumber} of {pages}
          </span>
          <button type="button" class="secondary" disabled={!logs.data.next_cursor} onClick={() => setCursors([...cursors, logs.data!.next_cursor!])}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
