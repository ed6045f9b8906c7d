/**
 * Every failure a caller can cause, with a stable code. The HTTP layer maps codes to statuses in one
 * place (`http/error-mapping.ts`); the CLI prints the message.
 */
export type ErrorCode =
  | 'unauthorized' // credentials or token missing or invalid
  | 'forbidden' // authenticated, but the credential may not do this (a read-only API key writing)
  | 'not_found' // unknown, or not the caller's: the two are indistinguishable on purpose
  | 'bad_request' // a parameter is missing or malformed; the message names it
  | 'conflict' // the request is well-formed but clashes with existing state
  | 'gone' // a single-use or short-lived link that was used or has expired
  | 'too_large' // more work in one request than a request may carry (a list beyond its maximum)
  | 'too_many_requests'; // throttled: too many failed attempts or requests; retry after `retryAfterS`

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For `too_many_requests`: seconds until trying again may succeed. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const badRequest = (message: string) => new DomainError('bad_request', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const gone = (message: string) => new DomainError('gone', message);
export const tooManyRequests = (message: string, retryAfterS: number) => new DomainError('too_many_requests', message, retryAfterS);
export const tooLarge = (message: string) => new DomainError('too_large', message);
