// Who is signed in, as the server said. The session itself is an HttpOnly cookie the page cannot
// read: the browser keeps no password and no token, only the email to show and what the server
// offers (sign-up, password reset). Everything here lives in memory and is asked again on load.

export interface Offer {
  signup: 'open' | 'closed';
  passwordReset: boolean;
}

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; reason?: string | undefined }
  | { status: 'signed-in'; email: string };

type Listener = (state: SessionState) => void;
const listeners = new Set<Listener>();
let state: SessionState = { status: 'loading' };
let offer: Offer = { signup: 'closed', passwordReset: false };

function set(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(next);
}

export const session = {
  state: (): SessionState => state,
  /** The signed-in email, or null. */
  email: (): string | null => (state.status === 'signed-in' ? state.email : null),
  offer: (): Offer => offer,
  setOffer: (next: Offer) => {
    offer = next;
    set(state);
  },
  start: (email: string) => set({ status: 'signed-in', email }),
  end: (reason?: string) => set({ status: 'signed-out', reason }),
  /** The API refused the session (it ended elsewhere, or expired): sign out, saying why. */
  expire: (reason: string) => {
    if (state.status === 'signed-in') set({ status: 'signed-out', reason: `You were signed out: ${reason}.` });
  },
  subscribe: (listener: Listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
