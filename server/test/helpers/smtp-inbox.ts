import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the test's SMTP server took. */
export interface Mail {
  to: string[];
  raw: string;
}

export interface SmtpInbox {
  /** smtp://127.0.0.1:<port>, for SMTP_URL or createSmtpSender. */
  url: string;
  mails: Mail[];
  /** While true, every recipient is refused with 451 (try again later), as a busy mail server does. */
  down: boolean;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on a free local port, keeping what it receives. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const inbox = { mails: [] as Mail[], down: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(_address, _session, callback) {
      callback(inbox.down ? Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }) : undefined);
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        inbox.mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(inbox, {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The body of a (quoted-printable, folded) message as plain text. */
export const textOf = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
