import type { ErrorCode } from '../domain/errors.js';

/** The one mapping from domain error codes to HTTP statuses. */
export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  too_many_requests: 429,
};
