/**
 * Every failure a caller can cause, with a stable code. The HTTP layer maps codes to statuses in one
 * place (`http/error-mapping.ts`); the CLI prints the message.
 */
export type ErrorCode =
  | 'unauthorized' // credentials or token missing or invalid
  | 'not_found' // unknown, or not the caller's: the two are indistinguishable on purpose
  | 'bad_request' // a parameter is missing or malformed; the message names it
  | 'conflict'; // the request is well-formed but clashes with existing state

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const badRequest = (message: string) => new DomainError('bad_request', message);
export const conflict = (message: string) => new DomainError('conflict', message);
