import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';

/** A {@link Mailer} that keeps every message in memory, in the order sent: for tests and embedding. */
export class MemoryMailer implements Mailer {
  /** Copies of the messages sent, oldest first. */
  readonly messages: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.messages.push({ to: message.to, subject: message.subject, text: message.text, html: message.html });
  }
}
