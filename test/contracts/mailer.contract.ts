import { expect } from 'chai';
import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';

/** What a mailer contract run needs: a fresh mailer, how to see what it delivered, how to dispose of it. */
export interface MailerSubject {
  mailer: Mailer;
  /** Every message delivered so far, oldest first, as the receiving side sees it. */
  received: () => Promise<MailMessage[]>;
  close?: () => Promise<void>;
}

/** A message like the ones Hangar sends: a link, several lines, HTML, non-ASCII text. */
export function sampleMessage(overrides: Partial<MailMessage> = {}): MailMessage {
  return {
    to: 'ada@example.com',
    subject: 'Confirm your e-mail address — Hangar',
    text: 'Hello Ada,\n\nConfirm your address: https://api.example.com/auth/confirm?token=Ab3dE5gH7jK9mN1pQ3sT5v\n\nGrüße, Hangar\n',
    html: '<p>Hello Ada,</p>\n<p><a href="https://api.example.com/auth/confirm?token=Ab3dE5gH7jK9mN1pQ3sT5v">Confirm your address</a></p>\n<p>Grüße, Hangar</p>\n',
    ...overrides,
  };
}

/**
 * The behaviour every {@link Mailer} adapter must have (core/accounts/mailer.ts): what goes in is
 * what the other side gets, field for field, in order. `makeSubject` is called before each test.
 */
export function describeMailerContract(name: string, makeSubject: () => Promise<MailerSubject>): void {
  describe(`Mailer contract: ${name}`, () => {
    let subject: MailerSubject;

    beforeEach(async () => {
      subject = await makeSubject();
    });

    afterEach(async () => {
      await subject.close?.();
    });

    it('delivers a message with recipient, subject, text and HTML intact', async () => {
      const message = sampleMessage();
      await subject.mailer.send(message);
      expect(await subject.received()).to.deep.equal([message]);
    });

    it('delivers several messages in the order they were sent', async () => {
      const messages = [
        sampleMessage({ to: 'one@example.com', subject: 'First' }),
        sampleMessage({ to: 'two@example.com', subject: 'Second' }),
        sampleMessage({ to: 'three@example.com', subject: 'Third' }),
      ];
      for (const message of messages) await subject.mailer.send(message);
      expect(await subject.received()).to.deep.equal(messages);
    });

    it('keeps long lines and special characters exact', async () => {
      const long = `${'https://files.example.com/m/'}${'x'.repeat(300)} ünïcödé ✓ = . .. ${'y'.repeat(120)}`;
      const message = sampleMessage({
        subject: `Reset your password: ${'long subject '.repeat(8)}✓`,
        text: `${long}\n.\n..leading dots\n`,
        html: `<p>${long}</p>\n<p>&amp; &lt;tag&gt; "quotes"</p>\n`,
      });
      await subject.mailer.send(message);
      expect(await subject.received()).to.deep.equal([message]);
    });

    it('is not affected by later changes to the message object', async () => {
      const message = sampleMessage();
      const expected = { ...message };
      await subject.mailer.send(message);
      message.subject = 'changed';
      expect(await subject.received()).to.deep.equal([expected]);
    });
  });
}
