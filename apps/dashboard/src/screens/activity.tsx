import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Notice, Pager, useLoad } from '../components.js';
import { formatBytes, formatDateTime, formatRelative } from '../format.js';
import type { ApiKey, LogEntry } from '../types.js';

const PAGE_SIZE = 50;

/** Activity: the request log (GET /logs) as a paged table, with the key used by name. */
export function ActivityScreen() {
  const [page, setPage] = useState(1);
  const logs = useLoad(() => api<{ logs: LogEntry[]; total: number }>('/logs', { query: { page, limit: PAGE_SIZE } }), [page]);
  const keys = useLoad(() => api<{ api_keys: ApiKey[] }>('/auth/api-keys', { query: { limit: 100 } }), []);
  const keyName = (entry: LogEntry) => {
    if (!entry.metadata.api_key_id) return entry.metadata.auth === 'jwt' ? 'Dashboard session' : '—';
    const key = keys.data?.api_keys.find((k) => k.id === entry.metadata.api_key_id);
    return key ? `${key.name} (${key.key_prefix}…)` : 'Revoked key';
  };
  return (
    <section aria-labelledby="activity-title">
      <div class="screen-head">
        <h1 id="activity-title">Activity</h1>
        <button type="button" class="secondary small" onClick={logs.reload}>
          Refresh
        </button>
      </div>
      <p class="muted">Every authenticated API request, newest first. New requests appear within a few seconds.</p>
      {logs.error && <Notice kind="error">{logs.error}</Notice>}
      {logs.data && logs.data.logs.length === 0 && <p class="empty">No activity yet.</p>}
      {logs.data && logs.data.logs.length > 0 && (
        <div class="table-wrap">
          <table class="log-table">
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
                  <td>
                    <time dateTime={entry.created_at} title={formatRelative(entry.created_at)}>
                      {formatDateTime(entry.created_at, true)}
                    </time>
                  </td>
                  <td>
                    <code>{entry.method}</code>
                  </td>
                  <td>
                    <code class="wrap">{entry.path}</code>
                  </td>
                  <td>
                    <span class={`status status-${Math.floor(entry.status_code / 100)}xx`}>{entry.status_code}</span>
                  </td>
                  <td>{entry.request_size_bytes === null ? '—' : formatBytes(entry.request_size_bytes)}</td>
                  <td>{keyName(entry)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {logs.data && <Pager page={page} limit={PAGE_SIZE} total={logs.data.total} onPage={setPage} />}
    </section>
  );
}
