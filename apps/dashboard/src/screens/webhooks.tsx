import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ConfirmDialog, CopyButton, messageOf, Notice, Pager, useLoad } from '../components.js';
import { formatDateTime, formatRelative } from '../format.js';
import type { Webhook, WebhookDelivery } from '../types.js';

/** The events an endpoint may subscribe to (docs/webhooks.md), with what each means. */
export const WEBHOOK_EVENTS = [
  { type: 'file.created', hint: 'a file was uploaded' },
  { type: 'file.updated', hint: 'a file’s name, visibility or expiry changed' },
  { type: 'file.deleted', hint: 'a file was deleted or expired' },
  { type: 'share.created', hint: 'a share link was created' },
  { type: 'share.revoked', hint: 'a share link was revoked' },
  { type: 'share.exhausted', hint: 'a share link served its last download' },
  { type: 'custom_domain.active', hint: 'the custom domain became active' },
  { type: 'custom_domain.failed', hint: 'the custom domain failed' },
  { type: 'quota.warning', hint: 'storage or files passed 80 % of the plan' },
  { type: 'quota.reached', hint: 'storage or files reached the plan’s limit' },
] as const;

const DELIVERY_PAGE = 20;

/** The secret of a new or rotated endpoint, shown once with a copy button. */
function NewSecret({ webhook, onDone }: { webhook: Webhook & { secret: string }; onDone: () => void }) {
  return (
    <div class="card new-key" aria-labelledby="new-secret-title">
      <h2 id="new-secret-title">Signing secret of {webhook.url}</h2>
      <Notice kind="warning">Copy it now: it is shown only once. Your receiver verifies each request with it (Standard Webhooks).</Notice>
      <div class="secret">
        <code data-testid="webhook-secret">{webhook.secret}</code>
        <CopyButton text={webhook.secret} label="Copy secret" />
      </div>
      <button type="button" class="secondary" onClick={onDone}>
        I have saved the secret
      </button>
    </div>
  );
}

/** The delivery log of one endpoint, newest first, with a retry button per delivery. */
function Deliveries({ webhook }: { webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const [error, setError] = useState<string>();
  const log = useLoad(
    () =>
      api<{ deliveries: WebhookDelivery[]; total: number }>(`/webhooks/${encodeURIComponent(webhook.id)}/deliveries`, {
        query: { page, limit: DELIVERY_PAGE },
      }),
    [webhook.id, page],
  );
  const retry = async (delivery: WebhookDelivery) => {
    setError(undefined);
    try {
      await api(`/webhooks/${encodeURIComponent(webhook.id)}/deliveries/${encodeURIComponent(delivery.id)}/retry`, { method: 'POST' });
      log.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <div class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries to {webhook.url}</h2>
      <p>
        <button type="button" class="secondary small" onClick={() => log.reload()}>
          Refresh
        </button>
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {log.error && <Notice kind="error">{log.error}</Notice>}
      {log.data && log.data.deliveries.length === 0 && <p class="empty">No deliveries yet.</p>}
      {log.data && log.data.deliveries.length > 0 && (
        <div class="table-wrap">
          <table class="responsive" data-testid="deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">When</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <td data-label="Event">
                    <code>{delivery.event_type}</code>
                  </td>
                  <td data-label="When" title={formatDateTime(delivery.created_at)}>
                    {formatRelative(delivery.created_at)}
                  </td>
                  <td data-label="State">{delivery.state}</td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td data-label="Last answer">
                    {delivery.last_status ?? delivery.last_error ?? '—'}
                    {delivery.duration_ms !== null && <span class="muted small"> ({delivery.duration_ms} ms)</span>}
                  </td>
                  <td data-label="Next attempt">{delivery.next_attempt_at ? formatRelative(delivery.next_attempt_at) : '—'}</td>
                  <td class="row-actions">
                    <button type="button" class="secondary small" onClick={() => retry(delivery)}>
                      Retry
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.data && <Pager page={page} limit={DELIVERY_PAGE} total={log.data.total} onPage={setPage} />}
    </div>
  );
}

/** Webhooks: add endpoints with event checkboxes (secret shown once), send a test, turn off and on, rotate, delete, read the delivery log and retry. */
export function WebhooksScreen() {
  const [fresh, setFresh] = useState<Webhook & { secret: string }>();
  const [error, setError] = useState<string>();
  const [news, setNews] = useState<string>();
  const [deleting, setDeleting] = useState<Webhook>();
  const [shown, setShown] = useState<Webhook>();
  const list = useLoad(() => api<{ webhooks: Webhook[] }>('/webhooks'), []);

  const act = async (what: () => Promise<void>) => {
    setError(undefined);
    setNews(undefined);
    try {
      await what();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const events = data.getAll('events').map(String);
    if (events.length === 0) return setError('Tick at least one event.');
    const description = ((data.get('description') as string | null) ?? '').trim();
    return act(async () => {
      const { webhook } = await api<{ webhook: Webhook & { secret: string } }>('/webhooks', {
        method: 'POST',
        json: { url: ((data.get('url') as string | null) ?? '').trim(), events, ...(description ? { description } : {}) },
      });
      setFresh(webhook);
      form.reset();
      list.reload();
    });
  };

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p class="muted">Hangar sends a signed POST to your endpoints when files, share links or your custom domain change.</p>
      {fresh ? (
        <NewSecret webhook={fresh} onDone={() => setFresh(undefined)} />
      ) : (
        <form class="card" onSubmit={create} aria-label="Add a webhook">
          <label>
            Endpoint URL
            <input name="url" type="url" required maxLength={2048} placeholder="https://example.com/hangar-webhook" />
          </label>
          <label>
            Description
            <input name="description" maxLength={256} placeholder="optional" />
          </label>
          <fieldset class="key-scopes">
            <legend>Events</legend>
            {WEBHOOK_EVENTS.map(({ type, hint }) => (
              <label key={type} class="inline key-scope">
                <input type="checkbox" name="events" value={type} defaultChecked={type.startsWith('file.')} />
                <code>{type}</code> <span class="muted small">({hint})</span>
              </label>
            ))}
          </fieldset>
          <button type="submit">Add webhook</button>
        </form>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {news && <Notice kind="success">{news}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.webhooks.length === 0 && <p class="empty">No webhooks yet.</p>}
      {list.data && list.data.webhooks.length > 0 && (
        <div class="table-wrap">
          <table class="responsive" data-testid="webhooks">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.webhooks.map((webhook) => (
                <tr key={webhook.id}>
                  <td data-label="Endpoint">
                    <code class="wrap">{webhook.url}</code>
                    {webhook.description && <div class="muted small">{webhook.description}</div>}
                  </td>
                  <td data-label="Events">{webhook.events.join(', ')}</td>
                  <td data-label="State">{webhook.enabled ? 'on' : webhook.disabled_reason === 'failing' ? 'off (failing for 5 days)' : 'off'}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() =>
                        act(async () => {
                          await api(`/webhooks/${encodeURIComponent(webhook.id)}/test`, { method: 'POST' });
                          setNews(`A test event is on its way to ${webhook.url}.`);
                          setShown(webhook);
                        })
                      }
                    >
                      Send test
                    </button>{' '}
                    <button type="button" class="secondary small" onClick={() => setShown(webhook)}>
                      Deliveries
                    </button>{' '}
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() =>
                        act(async () => {
                          await api(`/webhooks/${encodeURIComponent(webhook.id)}`, { method: 'PATCH', json: { enabled: !webhook.enabled } });
                          list.reload();
                        })
                      }
                    >
                      {webhook.enabled ? 'Turn off' : 'Turn on'}
                    </button>{' '}
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() =>
                        act(async () => {
                          const { webhook: rotated } = await api<{ webhook: Webhook & { secret: string } }>(
                            `/webhooks/${encodeURIComponent(webhook.id)}/rotate-secret`,
                            { method: 'POST' },
                          );
                          setFresh(rotated);
                        })
                      }
                    >
                      New secret
                    </button>{' '}
                    <button type="button" class="danger small" onClick={() => setDeleting(webhook)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown && <Deliveries key={shown.id} webhook={shown} />}
      {deleting && (
        <ConfirmDialog
          title="Delete webhook"
          message={<p>Delete the webhook to {deleting.url}? Events waiting for it are dropped.</p>}
          confirmLabel="Delete"
          onConfirm={async () => {
            await api(`/webhooks/${encodeURIComponent(deleting.id)}`, { method: 'DELETE' });
            setNews(`Deleted the webhook to ${deleting.url}.`);
            if (shown?.id === deleting.id) setShown(undefined);
            list.reload();
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}
