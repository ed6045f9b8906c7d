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
  /** An explicit Authorization header (sign-in checks credentials before there is a session). */
  authorization?: string;
  /** What to read from a 200: JSON (default), text, a Blob, or nothing. */
  read?: 'json' | 'text' | 'blob' | 'none';
}

/** base64 of UTF-8 text: `btoa` alone only takes Latin-1. */
export function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function basic(email: string, password: string): string {
  return `Basic ${base64(`${email}:${password}`)}`;
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
 * Calls the API with the session's credentials. A 401 on a signed-in call means the token was
 * regenerated elsewhere or the account changed: the session ends and the sign-in page shows.
 */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const current = session.get();
  const authorization = options.authorization ?? (current ? `Basic ${current.token}` : undefined);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (authorization) headers.authorization = authorization;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url(path, options.query), { method: options.method ?? 'GET', headers, body, credentials: 'omit' });
  } catch {
    throw new ApiError(0, 'the server cannot be reached; check your connection');
  }
  if (!response.ok) {
    const message = await errorMessage(response);
    if (response.status === 401 && !options.authorization && current) session.expire(message);
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
