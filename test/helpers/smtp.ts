import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  from: string;
  to: string[];
  subject: string;
  /** The decoded text body. */
  text: string;
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`, for SNSR_SMTP_URL. */
  url: string;
  received: ReceivedEmail[];
  /** Recipients refused with a permanent 550 while listed here. */
  refused: Set<string>;
  /** Resolves with the first email (received or to come) to `to` matching `subject`, and takes it off the list. */
  next(to: string, subject?: RegExp, timeoutMs?: number): Promise<ReceivedEmail>;
  close(): Promise<void>;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), as nodemailer writes non-ASCII headers. */
function decodeWords(header: string): string {
  return header
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_m, encoding: string, text: string) =>
      encoding.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    );
}

function decode(raw: string): ReceivedEmail & { headers: Record<string, string> } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  const encoding = headers['content-transfer-encoding']?.toLowerCase();
  if (encoding === 'quoted-printable') {
    body = Buffer.from(
      body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  } else if (encoding === 'base64') body = Buffer.from(body, 'base64').toString('utf8');
  return { headers, from: headers.from ?? '', to: [], subject: decodeWords(headers.subject ?? ''), text: body.replace(/\r\n/g, '\n') };
}

/** A real SMTP server on a free local port that keeps every email it is sent. */
export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedEmail[] = [];
  const waiters = new Set<() => void>();
  const refused = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refused.has(address.address)) return callback();
      callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const email = decode(Buffer.concat(chunks).toString('utf8'));
        received.push({ from: email.from, to: session.envelope.rcptTo.map((r) => r.address), subject: email.subject, text: email.text });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const take = (to: string, subject?: RegExp) => {
    const index = received.findIndex((email) => email.to.includes(to) && (!subject || subject.test(email.subject)));
    return index < 0 ? undefined : received.splice(index, 1)[0];
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refused,
    next: (to, subject, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const found = take(to, subject);
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no email to ${to}${subject ? ` matching ${subject}` : ''} within ${timeoutMs} ms; received: ${JSON.stringify(received.map((e) => [e.to, e.subject]))}`));
        }, timeoutMs);
        const check = () => {
          const email = take(to, subject);
          if (!email) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(email);
        };
        waiters.add(check);
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first URL in an email's text that starts with `prefix`. */
export function link(email: ReceivedEmail, prefix: string): string {
  const found = email.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!found) throw new Error(`no link starting with ${prefix} in:\n${email.text}`);
  return found;
}
