import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { escapeHtml } from './html.js';

// The shell of the small server-rendered pages of both servers (links opened from e-mail, share
// pages, the browsable reference). No assets from elsewhere; the only script is inline with a
// per-response nonce under a strict CSP.

/**
 * Renders a minimal HTML page with status `status`; `script` runs under a nonce-based CSP, other
 * scripts and styles only from this origin. `full` drops the built-in heading and styles.
 */
export function renderPage(ctx: Context, options: { status: number; title: string; body: string; script?: string; head?: string; full?: boolean }): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.status = options.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self' 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'`,
  );
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · Hangar</title>${options.head ?? ''}
${
  options.full
    ? ''
    : `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
input,button{font:inherit;padding:.5rem;margin:.25rem 0;width:100%;box-sizing:border-box}#status{min-height:1.5em}</style>`
}
</head><body>${options.full ? '' : `<h1>${escapeHtml(options.title)}</h1>`}
${options.body}
${options.script ? `<script nonce="${nonce}">${options.script}</script>` : ''}
</body></html>`;
}
