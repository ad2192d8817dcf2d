import { api } from '../api.js';
import { Notice, UsageBar, useLoad } from '../components.js';
import { daysUntil, formatBytes, formatCount, formatDate, formatDateTime } from '../format.js';
import type { Profile, Usage } from '../types.js';

/** One sentence on the plan and trial from the profile: "Trial ends in 9 days", "Paid until …". */
export function planState(profile: Profile): string {
  const { plan, subscription } = profile;
  switch (subscription.status) {
    case 'trialing': {
      const days = plan.trial_ends_at ? daysUntil(plan.trial_ends_at) : 0;
      return days <= 1 ? 'Trial ends today' : `Trial ends in ${days} days`;
    }
    case 'expired':
      return `Trial ended ${formatDate(plan.trial_ends_at)}: uploads and deletes are paused`;
    case 'active':
      return subscription.access_until ? `Paid until ${formatDate(subscription.access_until)}` : 'Active';
    case 'canceled':
      return `Canceled; access until ${formatDate(subscription.access_until)}`;
    default:
      return 'No trial limit';
  }
}

/** Usage: storage and file count against the plan, reads and image operations this period, plan and trial. */
export function UsageScreen() {
  const usage = useLoad(() => api<Usage>('/usage'), []);
  const profile = useLoad(() => api<Profile>('/profile'), []);
  const error = usage.error ?? profile.error;
  return (
    <section aria-labelledby="usage-title">
      <div class="screen-head">
        <h1 id="usage-title">Usage</h1>
        <button
          type="button"
          class="secondary small"
          onClick={() => {
            usage.reload();
            profile.reload();
          }}
        >
          Refresh
        </button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      {profile.data && (
        <div class="card plan">
          <p>
            Plan <strong>{profile.data.plan.name}</strong> · <span data-testid="plan-state">{planState(profile.data)}</span>
          </p>
          {profile.data.plan.trial_ends_at && profile.data.subscription.status === 'trialing' && (
            <p class="muted small">Trial end: {formatDateTime(profile.data.plan.trial_ends_at)}</p>
          )}
        </div>
      )}
      {usage.data && profile.data && (
        <div class="card">
          <UsageBar label="Storage" value={usage.data.storage_bytes} limit={profile.data.plan.storage_limit_bytes} format={formatBytes} />
          <UsageBar label="Files" value={usage.data.files_count} limit={profile.data.plan.file_count_limit} format={formatCount} />
          {typeof profile.data.plan.image_ops_limit === 'number' && (
            <UsageBar label="Image operations this period" value={usage.data.image_ops} limit={profile.data.plan.image_ops_limit} format={formatCount} />
          )}
        </div>
      )}
      {usage.data && (
        <div class="card">
          <h2>
            This period: {formatDate(usage.data.period_start)} – {formatDate(usage.data.period_end)}
          </h2>
          <dl class="stats">
            <div>
              <dt>Reads of your public files</dt>
              <dd data-testid="origin-reads">{formatCount(usage.data.origin_reads)}</dd>
            </div>
            <div>
              <dt>Image operations</dt>
              <dd>
                <span data-testid="image-ops">{formatCount(usage.data.image_ops)}</span>
                {profile.data && typeof profile.data.plan.image_ops_limit !== 'number' && <span class="muted small"> (no limit)</span>}
              </dd>
            </div>
            <div>
              <dt>Stored</dt>
              <dd data-testid="storage-used">{formatBytes(usage.data.storage_bytes)}</dd>
            </div>
            <div>
              <dt>Files</dt>
              <dd data-testid="files-count">{formatCount(usage.data.files_count)}</dd>
            </div>
          </dl>
        </div>
      )}
    </section>
  );
}
