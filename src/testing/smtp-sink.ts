import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message as the sink received and parsed it. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface SmtpSink {
  /** `MNEMO_SMTP_URL` for the sink (plain SMTP on loopback, no authentication). */
  readonly url: string;
  /** Every message received so far, oldest first. */
  readonly received: readonly ReceivedMail[];
  /** The next message to `address` not yet taken, waiting for it up to `timeoutMs`. */
  next(address: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Messages to `address` not yet taken, without waiting. */
  pending(address: string): ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on a loopback port (the `smtp-server` package), whose messages tests read
 * back parsed (mailparser): mail goes over the wire as in service, through nodemailer's SMTP
 * client, never through a stub.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail: ParsedMail) => {
          received.push({
            from: mail.from?.text ?? '',
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
          });
          for (const wake of waiting) wake();
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const pending = (address: string) =>
    received.filter((mail) => !taken.has(mail) && mail.to.includes(address.toLowerCase()));

  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    pending,
    async next(address, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [mail] = pending(address);
        if (mail) {
          taken.add(mail);
          return mail;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no email to ${address} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiting.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiting.add(wake);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
