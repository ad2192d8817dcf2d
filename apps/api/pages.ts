import type { Context } from 'koa';
import { escapeHtml } from '../http/html.js';
import { renderPage } from '../http/pages.js';

// The API's pages for links opened from e-mail (the shell is apps/http/pages.ts).

/** Page shown after confirmation when no `redirect_to` was given. */
export function confirmedPage(ctx: Context): void {
  renderPage(ctx, {
    status: 200,
    title: 'E-mail address confirmed',
    body: '<p>Your e-mail address is confirmed. You can now log in with <code>POST /auth/login</code>.</p>',
  });
}

/** Page for a confirmation or reset link that cannot be used. */
export function invalidLinkPage(ctx: Context, message: string): void {
  renderPage(ctx, { status: 400, title: 'This link cannot be used', body: `<p>${escapeHtml(message)}</p>` });
}
