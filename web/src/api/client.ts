import { session } from '../session';

/** An error answer of the API: `{statusCode, error, message}`, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  query?: Query;
  body?: unknown;
  /**
   * A 401 here is an answer, not a lost session: sign-in, and a wrong current password in the
   * change-password form (the spec answers 401), which must not sign the user out.
   */
  keepSessionOn401?: boolean;
  /** What to read from a 200: JSON (default), text, a Blob, or nothing. */
  read?: 'json' | 'text' | 'blob' | 'none';
}

export function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string' && body.message) return body.message;
  } catch {
    // not JSON: fall through to the status text
  }
  return text.trim() || `${response.status} ${response.statusText}`;
}

/**
 * Calls the API; the browser sends the session cookie (same origin only: the server refuses it
 * from anywhere else). A 401 on a signed-in call means the session ended (signed out elsewhere,
 * idle too long, password changed or reset): the sign-in page shows, saying why.
 */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url(path, options.query), { method: options.method ?? 'GET', headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'the server cannot be reached; check your connection');
  }
  if (!response.ok) {
    const message = await errorMessage(response);
    if (response.status === 401 && !options.keepSessionOn401) session.expire(message);
    throw new ApiError(response.status, message);
  }
  switch (options.read ?? 'json') {
    case 'text':
      return (await response.text()) as T;
    case 'blob':
      return (await response.blob()) as T;
    case 'none':
      return undefined as T;
    default: {
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    }
  }
}
