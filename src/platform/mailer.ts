import nodemailer from 'nodemailer';

/** One email: plain text for every reader, HTML for those that show it. */
export interface Email {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Sends email through the operator's SMTP server, or knows there is none. */
export interface Mailer {
  /** Whether email is configured (`MNEMO_SMTP_URL`): without it, links are shown to copy. */
  readonly enabled: boolean;
  /** Sends `email`; rejects when the server refuses it or cannot be reached in time. */
  send(email: Email): Promise<void>;
  close(): void;
}

/** How long a send may take before it fails: a request waiting on it must not hang. */
const TIMEOUT_MS = 10_000;

/**
 * Email by nodemailer over SMTP (`smtp://` upgrades with STARTTLS when the server offers it;
 * `smtps://` is TLS from the start; credentials in the URL). Connections are pooled: an
 * invitation or a reset is one message among others.
 *
 * @example
 * const mailer = createMailer({ url: 'smtp://user:pass@mail.example:587', from: 'mnemo <no-reply@example.com>' });
 * await mailer.send({ to: 'ada@acme.test', subject: '…', text: '…', html: '…' });
 */
export function createMailer(smtp: { url: string; from: string } | undefined): Mailer {
  if (!smtp) {
    return {
      enabled: false,
      send: () => Promise.reject(new Error('no SMTP server is configured (MNEMO_SMTP_URL)')),
      close: () => {},
    };
  }
  const transport = nodemailer.createTransport(
    {
      url: smtp.url,
      pool: true,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    },
    { from: smtp.from },
  );
  return {
    enabled: true,
    async send(email) {
      await transport.sendMail({ ...email });
    },
    close: () => transport.close(),
  };
}
