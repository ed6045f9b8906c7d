// The dashboard's one connection to the live event stream (GET /iot/developers/stream): a page's
// views share an EventSource per filter, opened while any of them is shown and closed when the last
// one goes (navigation), and while the tab is hidden.

export type LiveEventType = 'message' | 'alert' | 'delivery';

/**
 * `connecting` before the first answer, `live` while events flow, `reconnecting` after a drop
 * (EventSource retries, resuming with Last-Event-ID), `offline` when the stream failed or stayed
 * down past a grace period: the views then poll as they did before the stream.
 */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'offline';

/** Narrows the stream: the modules attached to an app, or one module (and its children). */
export interface LiveFilter {
  app?: number;
  serial?: string;
}

/** `resync`: the stream is back after a gap (a drop, a hidden tab); views read anew once. */
export type LiveListener = (type: LiveEventType | 'resync', data: unknown) => void;

const TYPES: LiveEventType[] = ['message', 'alert', 'delivery'];
/** How long a dropped stream may try to come back before the views poll. */
export const GRACE_MS = 10_000;
/** Waits before opening a failed stream again (an error answer ends EventSource's own retries). */
const REOPEN_MS = [5_000, 10_000, 20_000, 30_000];

export const liveSupported = () => typeof EventSource !== 'undefined';

export function streamPath(filter: LiveFilter): string {
  const params = new URLSearchParams();
  if (filter.app !== undefined) params.set('app', String(filter.app));
  if (filter.serial !== undefined) params.set('serial', filter.serial);
  const query = params.toString();
  return `/iot/developers/stream${query ? `?${query}` : ''}`;
}

class LiveStream {
  status: LiveStatus = 'connecting';
  users = 0;
  private source: EventSource | undefined;
  private lastEventId = '';
  private gapped = false;
  private reopens = 0;
  private timer: number | undefined;
  private readonly listeners = new Set<LiveListener>();
  private readonly watchers = new Set<(status: LiveStatus) => void>();
  private readonly onVisibility = () => (document.visibilityState === 'hidden' ? this.pause() : this.source || this.open());

  constructor(private readonly path: string) {}

  start(): void {
    document.addEventListener('visibilitychange', this.onVisibility);
    if (document.visibilityState !== 'hidden') this.open();
  }

  stop(): void {
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.pause();
  }

  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  watch(watcher: (status: LiveStatus) => void): () => void {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  private set(status: LiveStatus): void {
    if (status === this.status) return;
    this.status = status;
    for (const watcher of this.watchers) watcher(status);
  }

  private emit(type: LiveEventType | 'resync', data: unknown): void {
    for (const listener of this.listeners) listener(type, data);
  }

  private open(): void {
    window.clearTimeout(this.timer);
    if (!liveSupported()) return this.set('offline');
    // A new EventSource cannot send Last-Event-ID: the query carries it.
    const resume = this.lastEventId ? `${this.path.includes('?') ? '&' : '?'}lastEventId=${encodeURIComponent(this.lastEventId)}` : '';
    const source = new EventSource(`${this.path}${resume}`);
    this.source = source;
    source.onopen = () => {
      window.clearTimeout(this.timer);
      this.reopens = 0;
      this.set('live');
      if (this.gapped) this.emit('resync', undefined);
      this.gapped = false;
    };
    source.onerror = () => {
      if (this.source !== source) return;
      this.gapped = true;
      if (source.readyState === EventSource.CLOSED) return this.fail();
      if (this.status === 'offline' || this.status === 'reconnecting') return;
      this.set('reconnecting');
      this.timer = window.setTimeout(() => this.set('offline'), GRACE_MS);
    };
    for (const type of TYPES) {
      source.addEventListener(type, (event: MessageEvent<string>) => {
        if (event.lastEventId) this.lastEventId = event.lastEventId;
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        this.emit(type, data);
      });
    }
  }

  /**
   * An error answer: the views read once now (which also meets a 401 of an ended session and signs
   * out), then poll, and the stream is tried again later.
   */
  private fail(): void {
    this.source?.close();
    this.source = undefined;
    this.set('offline');
    this.emit('resync', undefined);
    window.clearTimeout(this.timer);
    const wait = REOPEN_MS[Math.min(this.reopens++, REOPEN_MS.length - 1)]!;
    this.timer = window.setTimeout(() => document.visibilityState !== 'hidden' && this.open(), wait);
  }

  /** Hidden tab or no view left: no connection held (browsers allow few per server). */
  private pause(): void {
    window.clearTimeout(this.timer);
    if (this.source) this.gapped = true;
    this.source?.close();
    this.source = undefined;
  }
}

const streams = new Map<string, LiveStream>();

/** The shared stream of `filter`, counted; `release` closes it when its last user goes. */
export function acquireStream(filter: LiveFilter): { stream: LiveStream; release: () => void } {
  const path = streamPath(filter);
  let stream = streams.get(path);
  if (!stream) {
    stream = new LiveStream(path);
    streams.set(path, stream);
    stream.start();
  }
  stream.users++;
  const mine = stream;
  let released = false;
  return {
    stream: mine,
    release: () => {
      if (released) return;
      released = true;
      if (--mine.users > 0) return;
      mine.stop();
      streams.delete(path);
    },
  };
}

export type { LiveStream };
