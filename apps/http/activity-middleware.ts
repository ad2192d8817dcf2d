import type { Context, Next } from 'koa';
import type { Principal } from '../../core/accounts/principal.js';
import type { ActivityRecorder } from '../../core/activity/activity-recorder.js';

/**
 * Logs every authenticated API request for its account (spec 2.7): method, path (never the query
 * string, which may hold secrets), final status, request size, and metadata `auth`, `api_key_id`,
 * `file_id`, `duration_ms`, `user_agent`, `ip`, `request_id`. Runs outermost, so it sees the
 * status of rendered errors too; the recorder buffers, so no request waits for the write.
 * Requests without a valid credential belong to no account and are not logged.
 */
export function activityMiddleware(activity: ActivityRecorder) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    // Read now: once a refused upload's connection is closed, the socket (and its address) is gone.
    const ip = (ctx.state.clientIp as string | undefined) ?? ctx.ip;
    try {
      await next();
    } finally {
      const principal = ctx.state.principal as Principal | undefined;
      if (principal) {
        const headers = ctx.req.headers;
        const declared = headers['content-length'];
        const received = ctx.state.requestBytes as number | undefined;
        const fileId = (ctx.state.fileId as string | undefined) ?? (ctx.params?.id && ctx.path.startsWith('/files/') ? String(ctx.params.id) : undefined);
        // Built member by member in a fixed order: object spreads of optional members are dearer on every request.
        const metadata: Record<string, unknown> = { auth: principal.kind === 'session' ? 'jwt' : 'api_key' };
        if (principal.kind === 'api_key') metadata.api_key_id = principal.apiKeyId;
        if (fileId) metadata.file_id = fileId;
        metadata.duration_ms = Math.round((performance.now() - started) * 10) / 10;
        metadata.user_agent = headers['user-agent'] || null;
        metadata.ip = ip;
        metadata.request_id = ctx.state.requestId;
        activity.record({
          userId: principal.userId,
          method: ctx.method,
          path: ctx.path,
          statusCode: ctx.status,
          requestSizeBytes: received ?? (declared !== undefined && declared !== '' && Number.isSafeInteger(Number(declared)) ? Number(declared) : null),
          metadata,
        });
      }
    }
  };
}
