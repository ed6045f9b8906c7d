import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Message } from '../api/types';
import { errorText, useInterval } from '../hooks';

export const PAGE = 25;
const LIVE_MS = 5000;
/**
 * `when` is the network's time of the uplink, in whole seconds, and callbacks can arrive late or
 * several in the same second: polling strictly after the newest shown would miss those. Each poll
 * looks a minute back and drops what is already shown.
 */
const OVERLAP_MS = 60_000;

/** Messages carry no id; these fields tell two apart. */
export const messageKey = (m: Message) => `${m.when}|${m.device}|${m.type}|${m.payload}`;

export interface MessageFeed {
  messages: Message[];
  /** Keys of the messages that arrived live since the page opened (highlighted). */
  fresh: Set<string>;
  loading: boolean;
  error: string | undefined;
  /** 1 for the newest page; live messages arrive on it only. */
  page: number;
  /** Whether a page of older messages may follow. */
  more: boolean;
  next: () => void;
  previous: () => void;
  /** How many arrived in the last poll, for the screen-reader announcement. */
  arrived: number;
}

/**
 * A module's messages, newest first, a page at a time: Next reads history.json?until=<oldest when
 * shown> (exclusive, and `when` is strictly increasing per module, so nothing repeats or is
 * skipped), Previous goes back to the page before. On the newest page new messages are polled every
 * 5 s (recents.json?after=<newest when>, with an overlap) and added at the top.
 */
export function useMessageFeed(serial: string, deviceId: string | undefined, live: boolean, onNew: (messages: Message[]) => void): MessageFeed {
  const [messages, setMessages] = useState<Message[]>([]);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [more, setMore] = useState(false);
  const [arrived, setArrived] = useState(0);
  const latest = useRef(messages);
  latest.current = messages;
  const polling = useRef(false);
  // The `until` of each page shown so far: undefined for the newest.
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const until = cursors.at(-1);
  useEffect(() => setCursors([undefined]), [serial, deviceId]);

  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setMessages([]);
    setFresh(new Set());
    api
      .history(serial, { amount: PAGE, ...(until !== undefined && { until }), ...(deviceId && { id: deviceId }) })
      .then((page) => {
        if (cancelled) return;
        setMessages(page);
        setMore(page.length === PAGE);
        setError(undefined);
      })
      .catch((caught: unknown) => !cancelled && setError(errorText(caught)))
      .finally(() => !cancelled && setLoading(false));
    return () => void (cancelled = true);
  }, [serial, deviceId, until]);

  useInterval(
    async () => {
      if (polling.current || loading) return;
      polling.current = true;
      try {
        const newest = latest.current[0]?.when;
        const after = newest === undefined ? undefined : newest - OVERLAP_MS;
        const answer = await api.recents(serial, { amount: 100, ...(after !== undefined && { after }), ...(deviceId && { id: deviceId }) });
        const known = new Set(latest.current.map(messageKey));
        // What is older than the page's oldest belongs to the next page, not on top of this one.
        const oldest = latest.current.at(-1)?.when;
        const added = answer.filter((m) => !known.has(messageKey(m)) && (oldest === undefined || m.when > oldest));
        setArrived(added.length);
        if (added.length === 0) return;
        // A late message goes where its time puts it; sort is stable, so equal times keep their order.
        setMessages((current) => [...added, ...current].sort((a, b) => b.when - a.when));
        setFresh((current) => new Set([...current, ...added.map(messageKey)]));
        setError(undefined);
        onNew(added);
      } catch (caught) {
        setError(`Live updates paused: ${errorText(caught)}`);
      } finally {
        polling.current = false;
      }
    },
    LIVE_MS,
    live && until === undefined,
  );

  const next = () => {
    const oldest = latest.current.at(-1)?.when;
    if (oldest !== undefined) setCursors((current) => [...current, oldest]);
  };
  const previous = () => setCursors((current) => (current.length > 1 ? current.slice(0, -1) : current));

  return { messages, fresh, loading, error, page: cursors.length, more, next, previous, arrived };
}
