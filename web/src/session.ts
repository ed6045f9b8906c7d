// The signed-in developer. sessionStorage survives a reload but not closing the browser (or tab),
// which is what a dashboard holding a credential should do. The account token is kept, never the
// password: it is revocable from My Account, and a password change does not end the session.

export interface Session {
  email: string;
  /** The account token: the whole Basic credential, base64(email:api key). */
  token: string;
}

const KEY = 'snsr.session';
type Listener = (current: Session | null, reason?: string) => void;
const listeners = new Set<Listener>();

function read(): Session | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Session> | null;
    return value && typeof value.email === 'string' && typeof value.token === 'string' ? { email: value.email, token: value.token } : null;
  } catch {
    return null;
  }
}

function write(value: Session | null, reason?: string): void {
  if (value) sessionStorage.setItem(KEY, JSON.stringify(value));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener(value, reason);
}

export const session = {
  get: read,
  start: (value: Session) => write(value),
  /** The token changed (regenerated from My Account): later calls use the new one. */
  replaceToken: (token: string) => {
    const current = read();
    if (current) write({ ...current, token });
  },
  end: () => write(null),
  /** The API refused the stored token: sign out, telling the user why. */
  expire: (reason: string) => write(null, `You were signed out: ${reason}.`),
  subscribe: (listener: Listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
