import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, signOut } from '../api.js';
import { navigate } from '../router.js';
import { Dialog, messageOf, Notice, Pager, useLoad } from '../components.js';
import { formatBytes, formatCount, formatDateTime } from '../format.js';

// The Admin section (docs/admin.md): accounts, invites, plans, the instance and the audit log, for
// administrators only. Counts and account fields only: no screen here shows a user's files.

/** An account as `GET /admin/users` lists it. */
interface AdminAccount {
  id: string;
  email: string;
  role: 'user' | 'admin';
  status: 'active' | 'suspended';
  suspended_at: string | null;
  email_confirmed_at: string | null;
  plan: string;
  storage_bytes: number;
  files_count: number;
  max_upload_size_bytes: number | null;
  storage_limit_bytes: number | null;
  file_count_limit: number | null;
  mfa_enabled: boolean;
  created_at: string;
  last_seen_at: string | null;
}

/** One audit entry. */
interface AuditEntry {
  id: string;
  created_at: string;
  actor: { id: string | null; email: string };
  action: string;
  target: { id: string; email: string | null } | null;
  client: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** One account with its details (`GET /admin/users/:id`). */
interface AdminAccountDetails extends AdminAccount {
  subscription: { status: string; trial_ends_at: string | null; access_until: string | null };
  limits: { storage_limit_bytes: number; file_count_limit: number; upload_limit_bytes: number };
  usage: { period_start: string; period_end: string; origin_reads: number; image_ops: number };
  recent_actions: AuditEntry[];
  /** A background deletion in progress (resumed by any server process), else null. */
  deletion: { state: 'deleting'; requested_at: string; files_deleted: number } | null;
}

interface AdminPlan {
  name: string;
  trial_days: number | null;
  storage_limit_bytes: number;
  file_count_limit: number;
  max_upload_size_bytes: number;
  image_ops_limit: number | null;
  default: boolean;
}

interface AdminInvite {
  id: string;
  state: string;
  plan: string | null;
  created_at: string;
  expires_at: string | null;
  link?: string;
}

interface AdminStats {
  accounts: { total: number; active: number; suspended: number; unconfirmed: number; admins: number };
  files: number;
  bytes: number;
  uploads_per_day: { day: string; files: number; bytes: number }[];
  top_accounts: { id: string; email: string; storage_bytes: number; files_count: number }[];
  instance: Record<string, string> | null;
  version: string;
}

const TABS = [
  { id: 'users', label: 'Users' },
  { id: 'invites', label: 'Invites' },
  { id: 'plans', label: 'Plans' },
  { id: 'instance', label: 'Instance' },
  { id: 'audit', label: 'Audit' },
] as const;
type Tab = (typeof TABS)[number]['id'];

const PAGE_SIZE = 25;

/**
 * The Admin section: a heading, its sub-navigation and the chosen part; or, when the API answers
 * SECOND_FACTOR_REQUIRED (an administrator with a second factor whose session did not prove it,
 * docs/admin.md), what to do about it: sign in again with the factor.
 */
export function AdminScreen() {
  const [tab, setTab] = useState<Tab>('users');
  const [needsSecondFactor, setNeedsSecondFactor] = useState(false);
  useEffect(() => {
    api('/admin/plans').catch((failure) => {
      if (failure instanceof ApiError && failure.code === 'SECOND_FACTOR_REQUIRED') setNeedsSecondFactor(true);
    });
  }, []);
  if (needsSecondFactor) return <SignInAgain />;
  return (
    <section aria-labelledby="admin-title">
      <div class="screen-head">
        <h1 id="admin-title">Admin</h1>
      </div>
      <p class="muted">Accounts, invites, plans and the instance. Administrators see counts, never anyone’s files; every change is in the audit log.</p>
      <nav class="sub-nav" aria-label="Admin">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            class={t.id === tab ? '' : 'secondary'}
            aria-current={t.id === tab ? 'page' : undefined}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </nav>
      {tab === 'users' && <UsersPart />}
      {tab === 'invites' && <InvitesPart />}
      {tab === 'plans' && <PlansPart />}
      {tab === 'instance' && <InstancePart />}
      {tab === 'audit' && <AuditPart />}
    </section>
  );
}

/** Shown to an administrator whose session did not prove the second factor the account has. */
function SignInAgain() {
  return (
    <section aria-labelledby="admin-title">
      <div class="screen-head">
        <h1 id="admin-title">Admin</h1>
      </div>
      <Notice kind="warning">
        Your account has two-factor sign-in, and this session was opened without it (before you turned it on, or by a sign-in that skipped it). Sign in again
        with your authenticator app or a passkey to use the Admin section.
      </Notice>
      <button
        type="button"
        onClick={async () => {
          await signOut();
          navigate('/signin', true);
        }}
      >
        Sign out and sign in again
      </button>
    </section>
  );
}

function UsersPart() {
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState('-created');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string>();
  const users = useLoad(
    () => api<{ users: AdminAccount[]; total: number }>('/admin/users', { query: { q: query, status, sort, page, limit: PAGE_SIZE } }),
    [query, status, sort, page],
  );
  if (open)
    return (
      <UserPage
        id={open}
        onBack={() => {
          setOpen(undefined);
          users.reload();
        }}
      />
    );
  return (
    <div>
      <h2>Users</h2>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search by e-mail
          <input
            type="search"
            value={query}
            onInput={(e) => {
              setQuery(e.currentTarget.value);
              setPage(1);
            }}
          />
        </label>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setPage(1);
            }}
          >
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="suspended">Suspended</option>
            <option value="unconfirmed">Unconfirmed</option>
          </select>
        </label>
        <label>
          Sort by
          <select
            value={sort}
            onChange={(e) => {
              setSort(e.currentTarget.value);
              setPage(1);
            }}
          >
            <option value="-created">Newest</option>
            <option value="created">Oldest</option>
            <option value="email">E-mail</option>
            <option value="-storage">Most storage</option>
            <option value="-files">Most files</option>
            <option value="-last_seen">Last seen</option>
          </select>
        </label>
      </form>
      {users.error && <Notice kind="error">{users.error}</Notice>}
      {users.data && users.data.users.length === 0 && <p class="empty">No accounts match.</p>}
      {users.data && users.data.users.length > 0 && (
        <div class="table-wrap">
          <table class="responsive">
            <caption class="muted small">{formatCount(users.data.total)} accounts</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Plan</th>
                <th scope="col">Storage</th>
                <th scope="col">Files</th>
                <th scope="col">Two-factor</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {users.data.users.map((u) => (
                <tr key={u.id}>
                  <td>
                    <button type="button" class="link" onClick={() => setOpen(u.id)}>
                      {u.email}
                    </button>
                  </td>
                  <td data-label="Role">{u.role}</td>
                  <td data-label="Status">{u.email_confirmed_at === null ? `${u.status}, unconfirmed` : u.status}</td>
                  <td data-label="Plan">{u.plan || 'default'}</td>
                  <td data-label="Storage">{formatBytes(u.storage_bytes)}</td>
                  <td data-label="Files">{formatCount(u.files_count)}</td>
                  <td data-label="Two-factor">{u.mfa_enabled ? 'on' : 'off'}</td>
                  <td data-label="Last seen">{u.last_seen_at ? formatDateTime(u.last_seen_at) : 'never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {users.data && <Pager page={page} limit={PAGE_SIZE} total={users.data.total} onPage={setPage} />}
    </div>
  );
}

/** An action on the account a destructive one of which is confirmed by typing the account's e-mail. */
interface AccountAction {
  label: string;
  run: () => Promise<unknown>;
  /** Typed-e-mail confirmation with this explanation; absent: no confirmation. */
  confirm?: string;
  danger?: boolean;
}

function UserPage({ id, onBack }: { id: string; onBack: () => void }) {
  const user = useLoad(() => api<AdminAccountDetails>(`/admin/users/${id}`), [id]);
  const plans = useLoad(() => api<{ plans: AdminPlan[] }>('/admin/plans'), []);
  const [pending, setPending] = useState<AccountAction>();
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string }>();
  const u = user.data;
  const run = async (action: AccountAction) => {
    try {
      const answer = (await action.run()) as { state?: string; files_remaining?: number } | undefined;
      if (answer?.state === 'deleting') {
        // A large account is deleted in the background (202): its page shows the files left until it is gone.
        setNotice({
          kind: 'success',
          text: `Delete account: started, ${formatCount(answer.files_remaining ?? 0)} files to delete. It goes on in the background, on any server process; reload this page to follow.`,
        });
        user.reload();
        return;
      }
      setNotice({ kind: 'success', text: `${action.label}: done.` });
      if (action.label === 'Delete account') onBack();
      else user.reload();
    } catch (error) {
      setNotice({ kind: 'error', text: messageOf(error) });
    }
  };
  const patch = (json: unknown) => api(`/admin/users/${id}`, { method: 'PATCH', json });
  const actions: AccountAction[] = u
    ? [
        u.status === 'active'
          ? {
              label: 'Suspend',
              danger: true,
              run: () => patch({ status: 'suspended' }),
              confirm:
                'Sign-in, refresh and API keys of this account stop working and its files are no longer served, until it is reinstated. Nothing is deleted.',
            }
          : { label: 'Reinstate', run: () => patch({ status: 'active' }) },
        u.role === 'user'
          ? { label: 'Make administrator', run: () => patch({ role: 'admin' }), confirm: 'This account will manage every account of this service.' }
          : { label: 'Remove administrator role', run: () => patch({ role: 'user' }), confirm: 'This account will no longer reach the Admin section.' },
        { label: 'Sign out everywhere', run: () => api(`/admin/users/${id}/revoke-sessions`, { method: 'POST' }) },
        {
          label: 'Reset two-factor sign-in',
          danger: true,
          run: () => api(`/admin/users/${id}/reset-mfa`, { method: 'POST' }),
          confirm:
            'Removes the authenticator app, the recovery codes and every passkey, signs out every session and mails the owner. Check who is asking first.',
        },
        ...(u.email_confirmed_at === null
          ? [{ label: 'Resend confirmation e-mail', run: () => api(`/admin/users/${id}/resend-confirmation`, { method: 'POST' }) }]
          : []),
        {
          label: 'Delete account',
          danger: true,
          run: () => api(`/admin/users/${id}`, { method: 'DELETE' }),
          confirm: 'Deletes the account with all its files, keys and sessions. This cannot be undone.',
        },
      ]
    : [];
  return (
    <div>
      <p>
        <button type="button" class="secondary small" onClick={onBack}>
          ← All users
        </button>
      </p>
      {user.error && <Notice kind="error">{user.error}</Notice>}
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {u && (
        <>
          <h2>{u.email}</h2>
          {u.deletion && (
            <Notice kind="warning">
              Being deleted since {formatDateTime(u.deletion.requested_at)}: {formatCount(u.deletion.files_deleted)} files deleted, {formatCount(u.files_count)}{' '}
              left. It goes on in the background; this account is gone once done.
            </Notice>
          )}
          <dl class="facts">
            <dt>Role</dt>
            <dd>{u.role}</dd>
            <dt>Status</dt>
            <dd>{u.status === 'suspended' ? `suspended since ${formatDateTime(u.suspended_at)}` : 'active'}</dd>
            <dt>E-mail confirmed</dt>
            <dd>{u.email_confirmed_at ? formatDateTime(u.email_confirmed_at) : 'no'}</dd>
            <dt>Plan</dt>
            <dd>
              {u.plan || 'default'} ({u.subscription.status})
            </dd>
            <dt>Storage</dt>
            <dd>
              {formatBytes(u.storage_bytes)} of {formatBytes(u.limits.storage_limit_bytes)}
            </dd>
            <dt>Files</dt>
            <dd>
              {formatCount(u.files_count)} of {formatCount(u.limits.file_count_limit)}
            </dd>
            <dt>Reads this period</dt>
            <dd>{formatCount(u.usage.origin_reads)}</dd>
            <dt>Two-factor sign-in</dt>
            <dd>{u.mfa_enabled ? 'on' : 'off'}</dd>
            <dt>Created</dt>
            <dd>{formatDateTime(u.created_at)}</dd>
            <dt>Last seen</dt>
            <dd>{u.last_seen_at ? formatDateTime(u.last_seen_at) : 'never'}</dd>
          </dl>
          <LimitsForm account={u} plans={plans.data?.plans ?? []} onSave={async (json) => run({ label: 'Save limits', run: () => patch(json) })} />
          <h3>Actions</h3>
          <div class="actions wrap">
            {actions.map((action) => (
              <button
                key={action.label}
                type="button"
                class={action.danger ? 'danger' : 'secondary'}
                onClick={() => (action.confirm ? setPending(action) : void run(action))}
              >
                {action.label}
              </button>
            ))}
          </div>
          <h3>Recent administrator actions</h3>
          <AuditTable entries={u.recent_actions} />
          {pending && <TypedConfirm email={u.email} action={pending} onClose={() => setPending(undefined)} onConfirm={() => run(pending)} />}
        </>
      )}
    </div>
  );
}

/** Confirms an action on an account by typing its e-mail address. */
function TypedConfirm({ email, action, onClose, onConfirm }: { email: string; action: AccountAction; onClose: () => void; onConfirm: () => Promise<void> }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title={`${action.label}?`} onClose={onClose}>
      <form
        class="dialog-body"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          await onConfirm();
          onClose();
        }}
      >
        <p>{action.confirm}</p>
        <label>
          Type <strong>{email}</strong> to confirm
          <input type="text" autoComplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class={action.danger ? 'danger' : ''} disabled={busy || typed.trim().toLowerCase() !== email}>
            {action.label}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** An account's plan and own limits (empty: the plan's). */
function LimitsForm({
  account,
  plans,
  onSave,
}: {
  account: AdminAccountDetails;
  plans: AdminPlan[];
  onSave: (json: Record<string, unknown>) => Promise<void>;
}) {
  const [plan, setPlan] = useState(account.plan);
  const [storage, setStorage] = useState(account.storage_limit_bytes?.toString() ?? '');
  const [files, setFiles] = useState(account.file_count_limit?.toString() ?? '');
  const whole = (text: string) => (text.trim() === '' ? null : Number(text));
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void onSave({ ...(plan !== account.plan && { plan }), storage_limit_bytes: whole(storage), file_count_limit: whole(files) });
      }}
    >
      <h3>Plan and limits</h3>
      <label>
        Plan
        <select value={plan} onChange={(e) => setPlan(e.currentTarget.value)}>
          {!plans.some((p) => p.name === plan) && <option value={plan}>{plan || 'default'}</option>}
          {plans.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Own storage limit in bytes (empty: the plan’s)
        <input type="number" min={0} inputMode="numeric" value={storage} onInput={(e) => setStorage(e.currentTarget.value)} />
      </label>
      <label>
        Own file count limit (empty: the plan’s)
        <input type="number" min={0} inputMode="numeric" value={files} onInput={(e) => setFiles(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit">Save plan and limits</button>
      </div>
    </form>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0) return <p class="empty">No administrator actions.</p>;
  const change = (e: AuditEntry) =>
    e.after === null
      ? '—'
      : Object.keys(e.after)
          .map((key) => `${key}: ${JSON.stringify(e.before?.[key] ?? null)} → ${JSON.stringify(e.after![key])}`)
          .join('; ');
  return (
    <div class="table-wrap">
      <table class="responsive">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Account</th>
            <th scope="col">From</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>{formatDateTime(e.created_at, true)}</td>
              <td data-label="Who">{e.actor.email}</td>
              <td data-label="What">{e.action.replace(/_/g, ' ')}</td>
              <td data-label="Account">{e.target?.email ?? '—'}</td>
              <td data-label="From">{e.client ?? 'server'}</td>
              <td data-label="Change">
                <code class="wrap">{change(e)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AuditPart() {
  const [page, setPage] = useState(1);
  const audit = useLoad(() => api<{ entries: AuditEntry[]; total: number }>('/admin/audit', { query: { page, limit: PAGE_SIZE } }), [page]);
  return (
    <div>
      <h2>Audit log</h2>
      {audit.error && <Notice kind="error">{audit.error}</Notice>}
      {audit.data && <AuditTable entries={audit.data.entries} />}
      {audit.data && <Pager page={page} limit={PAGE_SIZE} total={audit.data.total} onPage={setPage} />}
    </div>
  );
}

function InvitesPart() {
  const invites = useLoad(() => api<{ invites: AdminInvite[] }>('/admin/invites'), []);
  const [created, setCreated] = useState<AdminInvite>();
  const [error, setError] = useState<string>();
  return (
    <div>
      <h2>Invites</h2>
      <p class="muted">Single-use links to register while registration is by invite. A link is shown once, when it is created.</p>
      <button
        type="button"
        onClick={async () => {
          try {
            setCreated(await api<AdminInvite>('/admin/invites', { method: 'POST', json: {} }));
            invites.reload();
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        Create an invite
      </button>
      {error && <Notice kind="error">{error}</Notice>}
      {created?.link && (
        <Notice kind="success">
          New invite (valid until {formatDateTime(created.expires_at)}): <code class="wrap">{created.link}</code>
        </Notice>
      )}
      {invites.error && <Notice kind="error">{invites.error}</Notice>}
      {invites.data && invites.data.invites.length === 0 && <p class="empty">No invites.</p>}
      {invites.data && invites.data.invites.length > 0 && (
        <ul class="plain-list">
          {invites.data.invites.map((i) => (
            <li key={i.id}>
              {i.state} · plan {i.plan ?? 'default'} · expires {i.expires_at ? formatDateTime(i.expires_at) : 'never'}{' '}
              {i.state === 'usable' && (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Revoke the invite created ${formatDateTime(i.created_at, true)}`}
                  onClick={async () => {
                    await api(`/admin/invites/${i.id}`, { method: 'DELETE' });
                    invites.reload();
                  }}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function PlansPart() {
  const plans = useLoad(() => api<{ plans: AdminPlan[] }>('/admin/plans'), []);
  const [editing, setEditing] = useState<AdminPlan>();
  return (
    <div>
      <h2>Plans</h2>
      <p class="muted">A change applies to every account on the plan within a second, on every server.</p>
      {plans.error && <Notice kind="error">{plans.error}</Notice>}
      {plans.data && (
        <div class="table-wrap">
          <table class="responsive">
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">Trial</th>
                <th scope="col">Storage</th>
                <th scope="col">Files</th>
                <th scope="col">Largest upload</th>
                <th scope="col">
                  <span class="offscreen">Edit</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {plans.data.plans.map((p) => (
                <tr key={p.name}>
                  <td>
                    {p.name}
                    {p.default && ' (new accounts)'}
                  </td>
                  <td data-label="Trial">{p.trial_days === null ? 'none' : `${p.trial_days} days`}</td>
                  <td data-label="Storage">{formatBytes(p.storage_limit_bytes)}</td>
                  <td data-label="Files">{formatCount(p.file_count_limit)}</td>
                  <td data-label="Largest upload">{formatBytes(p.max_upload_size_bytes)}</td>
                  <td>
                    <button type="button" class="secondary small" aria-label={`Edit plan ${p.name}`} onClick={() => setEditing(p)}>
                      Edit
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <PlanDialog
          plan={editing}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            plans.reload();
          }}
        />
      )}
    </div>
  );
}

function PlanDialog({ plan, onClose, onSaved }: { plan: AdminPlan; onClose: () => void; onSaved: () => void }) {
  const [values, setValues] = useState({
    trial_days: plan.trial_days?.toString() ?? '',
    storage_limit_bytes: String(plan.storage_limit_bytes),
    file_count_limit: String(plan.file_count_limit),
    max_upload_size_bytes: String(plan.max_upload_size_bytes),
  });
  const [error, setError] = useState<string>();
  const field = (key: keyof typeof values, label: string) => (
    <label>
      {label}
      <input type="number" min={0} inputMode="numeric" value={values[key]} onInput={(e) => setValues({ ...values, [key]: e.currentTarget.value })} />
    </label>
  );
  return (
    <Dialog title={`Plan ${plan.name}`} onClose={onClose}>
      <form
        class="dialog-body stack"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await api(`/admin/plans/${encodeURIComponent(plan.name)}`, {
              method: 'PUT',
              json: {
                trial_days: values.trial_days.trim() === '' ? null : Number(values.trial_days),
                storage_limit_bytes: Number(values.storage_limit_bytes),
                file_count_limit: Number(values.file_count_limit),
                max_upload_size_bytes: Number(values.max_upload_size_bytes),
                image_ops_limit: plan.image_ops_limit,
              },
            });
            onSaved();
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        {field('trial_days', 'Trial days (empty: no trial end)')}
        {field('storage_limit_bytes', 'Storage limit in bytes')}
        {field('file_count_limit', 'File count limit')}
        {field('max_upload_size_bytes', 'Largest upload in bytes')}
        {error && <Notice kind="error">{error}</Notice>}
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit">Save plan</button>
        </div>
      </form>
    </Dialog>
  );
}

function InstancePart() {
  const stats = useLoad(() => api<AdminStats>('/admin/stats'), []);
  const s = stats.data;
  const most = s ? Math.max(1, ...s.uploads_per_day.map((d) => d.files)) : 1;
  const mostBytes = s ? Math.max(1, ...s.uploads_per_day.map((d) => d.bytes)) : 1;
  return (
    <div>
      <h2>Instance</h2>
      {stats.error && <Notice kind="error">{stats.error}</Notice>}
      {s && (
        <>
          <dl class="facts">
            <dt>Accounts</dt>
            <dd>
              {formatCount(s.accounts.total)} ({formatCount(s.accounts.active)} active, {formatCount(s.accounts.suspended)} suspended,{' '}
              {formatCount(s.accounts.unconfirmed)} unconfirmed, {formatCount(s.accounts.admins)} administrators)
            </dd>
            <dt>Files stored</dt>
            <dd>
              {formatCount(s.files)} ({formatBytes(s.bytes)})
            </dd>
            <dt>Version</dt>
            <dd>{s.version}</dd>
            {Object.entries(s.instance ?? {}).map(([key, value]) => (
              <Fragment key={key}>
                <dt>{key.replace(/_/g, ' ')}</dt>
                <dd>{value}</dd>
              </Fragment>
            ))}
          </dl>
          <h3 id="uploads-chart">Files and bytes uploaded per day, last 30 days (of the files still stored)</h3>
          <table class="chart" aria-labelledby="uploads-chart">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Files</th>
                <th scope="col">Bytes</th>
              </tr>
            </thead>
            <tbody>
              {s.uploads_per_day.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>
                    <meter class="chart-bar" min={0} max={most} value={d.files} aria-hidden="true" />
                    {formatCount(d.files)}
                  </td>
                  <td>
                    <meter class="chart-bar" min={0} max={mostBytes} value={d.bytes} aria-hidden="true" />
                    {formatBytes(d.bytes)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Largest accounts</h3>
          <ol>
            {s.top_accounts.map((a) => (
              <li key={a.id}>
                {a.email}: {formatBytes(a.storage_bytes)}, {formatCount(a.files_count)} files
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
