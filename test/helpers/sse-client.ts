export interface SseEvent {
  id?: string;
  event: string;
  data: string;
  /** Date.now() when it arrived. */
  receivedAt: number;
}

export interface SseClient {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Comment lines received (heartbeats). */
  comments: string[];
  /** Resolves once `count` events (optionally of one type) have arrived. */
  waitFor(count: number, type?: string, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the stream (or close() aborts it). */
  ended: Promise<void>;
  close(): void;
}

/** Opens a Server-Sent Events stream over real HTTP and parses what arrives. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let finish = () => {};
  const ended = new Promise<void>((resolve) => (finish = resolve));
  const client: SseClient = {
    ended,
    status: response.status,
    headers: response.headers,
    events,
    comments,
    waitFor(count, type, timeoutMs = 15_000) {
      const matching = () => events.filter((e) => type === undefined || e.event === type);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (matching().length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${count} ${type ?? ''} events not received in ${timeoutMs} ms; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    finish();
    return client;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { event: 'message', data: '', receivedAt: Date.now() };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data = line.slice(6);
              isEvent = true;
            }
          }
          if (isEvent) events.push(event);
          for (const waiter of [...waiters]) waiter();
        }
      }
    } catch {
      // aborted by close()
    }
    finish();
  })();
  return client;
}
