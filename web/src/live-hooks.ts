import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useInterval } from './hooks';
import { acquireStream } from './live-stream';
import type { LiveEventType, LiveFilter, LiveListener, LiveStatus } from './live-stream';

export type { LiveEventType, LiveFilter, LiveStatus } from './live-stream';

/**
 * The page's live stream for `filter` (shared by every view that asks for the same filter; none
 * when `filter` is null), calling `on` with each event and with `resync` after a gap. Returns
 * the stream's status, or undefined without a stream.
 */
export function useLiveEvents(filter: LiveFilter | null, on: LiveListener): LiveStatus | undefined {
  const latest = useRef(on);
  latest.current = on;
  const [status, setStatus] = useState<LiveStatus>();
  const key = filter === null ? null : `${filter.app ?? ''}|${filter.serial ?? ''}`;
  useEffect(() => {
    if (filter === null) {
      setStatus(undefined);
      return;
    }
    const { stream, release } = acquireStream(filter);
    setStatus(stream.status);
    const unwatch = stream.watch(setStatus);
    const unlisten = stream.listen((type, data) => latest.current(type, data));
    return () => {
      unlisten();
      unwatch();
      release();
    };
    // `key` stands for the filter's fields.
  }, [key]);
  return status;
}

/**
 * `call` once things settle: `wait` ms after the last request, and at least every `maxWait` ms
 * while requests keep coming, so a burst of events costs a few reloads, not one each.
 */
export function useDebouncedCall(call: () => void, wait: number, maxWait: number): () => void {
  const latest = useRef(call);
  latest.current = call;
  const state = useRef<{ timer?: number; first?: number }>({});
  useEffect(() => () => window.clearTimeout(state.current.timer), []);
  return useCallback(() => {
    const pending = state.current;
    const now = Date.now();
    pending.first ??= now;
    window.clearTimeout(pending.timer);
    pending.timer = window.setTimeout(
      () => {
        pending.first = undefined;
        pending.timer = undefined;
        latest.current();
      },
      Math.max(0, Math.min(wait, pending.first + maxWait - now)),
    );
  }, [wait, maxWait]);
}

export interface LiveRefresh {
  /** Events of these types call `reload` (debounced). */
  types: LiveEventType[];
  /** The polling period while the stream is offline. */
  fallbackMs: number;
  wait?: number;
  maxWait?: number;
}

/**
 * A view that reads again when the stream says something changed: on `types` events and after a
 * gap, debounced; every `fallbackMs` while the stream is offline; never periodically while live.
 */
export function useLiveRefresh(filter: LiveFilter | null, reload: () => void, options: LiveRefresh): LiveStatus | undefined {
  const debounced = useDebouncedCall(reload, options.wait ?? 500, options.maxWait ?? 3000);
  const types = options.types;
  const status = useLiveEvents(filter, (type) => {
    if (type === 'resync' || types.includes(type)) debounced();
  });
  useInterval(reload, options.fallbackMs, status === 'offline');
  return status;
}
