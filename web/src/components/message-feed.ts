import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Message } from '../api/types';
import { errorText, useInterval } from '../hooks';
import { useLiveEvents } from '../live-hooks';
import type { LiveStatus } from '../live-hooks';

export const PAGE = 25;
/** The polling period while the live stream is offline. */
export const LIVE_MS = 5000;
/**
 * `when` is the network's time of the uplink, in whole seconds, and callbacks can arrive late or
 * several in the same second: reading strictly after the newest shown would miss those. Each read
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
  /** How many arrived last, for the screen-reader announcement. */
  arrived: number;
  /** The live stream's state while the newest page is live; undefined otherwise. */
  status: LiveStatus | undefined;
}

/**
 * A module's messages, newest first, a page at a time: Next reads history.json?until=<oldest when
 * shown> (exclusive, and `when` is strictly increasing per module, so nothing repeats or is
 * skipped), Previous goes back to the page before. On the newest page new messages arrive over the
 * live stream and are added at the top; after a gap in the stream, and every 5 s while it is
 * offline, recents.json?after=<newest when> (with an overlap) fills in what was missed.
 */
export function useMessageFeed(serial: string, device: { id: string; serial: string } | undefined, live: boolean, onNew: (messages: Message[]) => void): MessageFeed {
  const [messages, setMessages] = useState<Message[]>([]);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [more, setMore] = useState(false);
  const [arrived, setArrived] = useState(0);
  const latest = useRef(messages);
  latest.current = messages;
  const polling = useRef(false);
  // Messages the stream sent while the page was being read: added once it is shown.
  const early = useRef<Message[] | undefined>([]);
  // The `until` of each page shown so far: undefined for the newest.
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const until = cursors.at(-1);
  const deviceId = device?.id;
  useEffect(() => setCursors([undefined]), [serial, deviceId]);

  /** Adds what is new and belongs on this page, each message once, in time order. */
  const add = (incoming: Message[]) => {
    const known = new Set(latest.current.map(messageKey));
    // What is older than the page's oldest belongs to the next page, not on top of this one.
    const oldest = latest.current.at(-1)?.when;
    const added = incoming.filter((m) => !known.has(messageKey(m)) && (oldest === undefined || m.when > oldest) && (!device || m.device === device.serial));
    if (added.length === 0) return;
    // A late message goes where its time puts it; sort is stable, so equal times keep their order.
    latest.current = [...added, ...latest.current].sort((a, b) => b.when - a.when);
    setArrived(added.length);
    setMessages(latest.current);
    setFresh((current) => new Set([...current, ...added.map(messageKey)]));
    setError(undefined);
    onNew(added);
  };

  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setMessages([]);
    setFresh(new Set());
    early.current = [];
    api
      .history(serial, { amount: PAGE, ...(until !== undefined && { until }), ...(deviceId && { id: deviceId }) })
      .then((page) => {
        if (cancelled) return;
        latest.current = page;
        setMessages(page);
        setMore(page.length === PAGE);
        setError(undefined);
        const waiting = early.current ?? [];
        early.current = undefined;
        if (until === undefined) add(waiting);
      })
      .catch((caught: unknown) => !cancelled && setError(errorText(caught)))
      .finally(() => !cancelled && setLoading(false));
    return () => void (cancelled = true);
  }, [serial, deviceId, until]);

  const poll = async () => {
    if (polling.current || early.current) return;
    polling.current = true;
    try {
      const newest = latest.current[0]?.when;
      const after = newest === undefined ? undefined : newest - OVERLAP_MS;
      add(await api.recents(serial, { amount: 100, ...(after !== undefined && { after }), ...(deviceId && { id: deviceId }) }));
    } catch (caught) {
      setError(`Live updates paused: ${errorText(caught)}`);
    } finally {
      polling.current = false;
    }
  };

  const onTop = live && until === undefined;
  const status = useLiveEvents(onTop ? { serial } : null, (type, data) => {
    if (type === 'resync') return void poll();
    if (type !== 'message') return;
    const { message } = data as { message: Message };
    if (early.current) early.current.push(message);
    else add([message]);
  });
  useInterval(() => void poll(), LIVE_MS, onTop && status === 'offline');

  const next = () => {
    const oldest = latest.current.at(-1)?.when;
    if (oldest !== undefined) setCursors((current) => [...current, oldest]);
  };
  const previous = () => setCursors((current) => (current.length > 1 ? current.slice(0, -1) : current));

  return { messages, fresh, loading, error, page: cursors.length, more, next, previous, arrived, status };
}
