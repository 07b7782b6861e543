import nodemailer from 'nodemailer';

/** Sending one email: the side effect behind the email notifications, injected so tests use a real SMTP server of their own. */
export interface MailSender {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

/** Over SMTP (`SMTP_URL`: smtp://user:pass@host:587 or smtps://...:465), from `from`. */
export function createSmtpSender(options: { url: string; from: string; timeoutMs?: number }): MailSender {
  const timeout = options.timeoutMs ?? 15_000;
  const transport = nodemailer.createTransport({ url: options.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout }, { from: options.from });
  return {
    async send({ to, subject, text }) {
      // An address object, not text: nodemailer would read "a <b@c>, d@e" in a string as other recipients.
      await transport.sendMail({ to: { name: '', address: to }, subject, text });
    },
    close: () => transport.close(),
  };
}
