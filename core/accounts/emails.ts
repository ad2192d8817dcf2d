import type { MailMessage } from './mailer.js';

// Message texts in one place. Links are built by the caller from PUBLIC_API_URL.

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function message(to: string, subject: string, lines: string[], link?: { label: string; href: string }): MailMessage {
  const text = [...lines, ...(link ? ['', link.href] : [])].join('\n');
  const html = [
    ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    ...(link ? [`<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>`] : []),
  ].join('\n');
  return { to, subject, text, html };
}

/** Confirmation e-mail sent at registration; `link` is `PUBLIC_API_URL/auth/confirm?token=…`. */
export function confirmationEmail(to: string, link: string): MailMessage {
  return message(
    to,
    'Confirm your e-mail address',
    ['Welcome to Hangar.', 'Open the link below to confirm your e-mail address. It is valid for 24 hours and works once.'],
    { label: 'Confirm my e-mail address', href: link },
  );
}

/** Sent instead of a confirmation when someone registers an address that already has an account. */
export function alreadyRegisteredEmail(to: string, resetLink: string): MailMessage {
  return message(
    to,
    'You already have an account',
    [
      'Someone (perhaps you) tried to register a new account with this e-mail address, which already has one.',
      'If it was you and you forgot your password, you can reset it from the page below. Otherwise, ignore this message.',
    ],
    { label: 'Reset my password', href: resetLink },
  );
}

/** Password reset e-mail; `link` is the dashboard's reset screen, `PUBLIC_API_URL/#/reset?token=…`. */
export function passwordResetEmail(to: string, link: string): MailMessage {
  return message(
    to,
    'Reset your password',
    [
      'Open the link below to choose a new password. It is valid for 1 hour and works once.',
      'Changing the password signs out every session, but your API keys keep working unless you also revoke them: the page offers "Also revoke all API keys".',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ],
    { label: 'Choose a new password', href: link },
  );
}

/** Sent when an administrator turned the account's second factors off (docs/admin.md, `reset-mfa`). */
export function mfaResetEmail(to: string): MailMessage {
  return message(to, 'Your two-factor sign-in was reset', [
    'An administrator of this Hangar service removed the authenticator app and the passkeys of your account and signed out every session.',
    'You can now sign in with your password alone. Set up two-factor sign-in again from the Security page.',
    'If you did not ask for this, contact the operator of the service at once.',
  ]);
}
