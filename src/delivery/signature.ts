import { createHmac } from 'node:crypto';

/**
 * `X-Snsr-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by the app secret.
 * Signing the timestamp with the body lets receivers refuse replays of an old request; `v1` names
 * the scheme so a second one can be added beside it without breaking receivers.
 */
export function signatureHeader(secret: string, body: string, timestampS: number): string {
  const digest = createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex');
  return `t=${timestampS},v1=${digest}`;
}
