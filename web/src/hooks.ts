import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api/client';

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => Promise<void>;
  set: (data: T) => void;
}

/** Loads once per change of `deps`; `reload` fetches again. A stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  // `deps` are the caller's: `load` is a fresh closure on every render.
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await run();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
    } catch (caught) {
      if (mine === generation.current) setError(errorText(caught));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
    return () => void generation.current++;
  }, [reload]);
  return { data, error, loading, reload, set: setData };
}

export interface Action<A extends unknown[]> {
  run: (...args: A) => Promise<boolean>;
  busy: boolean;
  error: string | undefined;
  done: string | undefined;
  clear: () => void;
}

/**
 * A button's async work: busy while it runs, the error or the success message after. `run` resolves
 * true on success so forms can reset themselves.
 */
export function useAction<A extends unknown[]>(work: (...args: A) => Promise<string | void>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const message = await work(...args);
      if (mounted.current) setDone(message || undefined);
      return true;
    } catch (caught) {
      if (mounted.current) setError(errorText(caught));
      return false;
    } finally {
      if (mounted.current) setBusy(false);
    }
  };
  return { run, busy, error, done, clear: () => (setError(undefined), setDone(undefined)) };
}

/** Calls `tick` every `ms` while `enabled`, and not while the tab is hidden. */
export function useInterval(tick: () => void, ms: number, enabled = true): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!enabled) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState !== 'hidden') latest.current();
    }, ms);
    return () => window.clearInterval(timer);
  }, [ms, enabled]);
}
