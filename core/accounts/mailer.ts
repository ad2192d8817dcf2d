/** One e-mail message. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Port: hands a message to the mail system. Adapters: file outbox, SMTP (nodemailer), memory.
 * @throws on delivery failure (the queued mailer retries and logs; requests never wait for it)
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
