import type { Logger } from 'pino';

export interface Email {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends email over the operator's SMTP server (`SNSR_SMTP_URL`) with nodemailer: account
 * self-service queues its emails; the alert mailer sends and waits, to mark alerts sent only once
 * SMTP accepted them.
 */
export interface Mailer {
  send(email: Email): Promise<void>;
  /** Queues the email and returns at once; a failure is logged, never thrown. */
  queue(email: Email): void;
  /** Waits for queued emails (at most `timeoutMs`), then closes the SMTP connections. */
  close(timeoutMs?: number): Promise<void>;
}

export async function createMailer(smtpUrl: string, from: string, log: Logger): Promise<Mailer> {
  // Loaded only when SMTP is configured: every CLI command builds a context, and most send no email.
  const { default: nodemailer } = await import('nodemailer');
  // Pooled: a burst of sign-ups reuses connections; a dropped one is reopened by nodemailer.
  const transport = nodemailer.createTransport(`${smtpUrl}${smtpUrl.includes('?') ? '&' : '?'}pool=true`, { from });
  const pending = new Set<Promise<void>>();
  const send = async (email: Email) => {
    await transport.sendMail({ to: email.to, subject: email.subject, text: email.text });
  };
  return {
    send,
    queue(email) {
      const sending = send(email)
        .then(() => log.debug({ to: email.to, subject: email.subject }, 'email sent'))
        .catch((error: unknown) => log.error({ err: error, to: email.to, subject: email.subject }, 'email not sent'))
        .finally(() => pending.delete(sending));
      pending.add(sending);
    },
    async close(timeoutMs = 5000) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(pending), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      transport.close();
    },
  };
}
