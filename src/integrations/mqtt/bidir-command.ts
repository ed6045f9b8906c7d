/** Sets a module's bidir value for an app the module is attached to; false when it is not (or unknown). */
export type BidirSetter = (appId: number, serial: string, value: string | null) => Promise<boolean>;

const TOPIC = /^snsr\/apps\/(\d{1,15})\/modules\/([0-9A-Fa-f]{1,8})\/bidir\/set$/;
const VALUE = /^[0-9A-Fa-f]{16}$/;

/** The value a payload carries: the hex as text, or JSON `{"value": "<hex>"}` (`null` clears it). */
function valueOf(payload: string): { value: string | null } | { reason: string } {
  const text = payload.trim();
  if (VALUE.test(text)) return { value: text.toUpperCase() };
  if (!text.startsWith('{')) return { reason: 'payload must be 16 hex digits, or JSON {"value": "<16 hex digits>"}' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { reason: 'payload is not valid JSON' };
  }
  const value = (parsed as { value?: unknown } | null)?.value;
  if (value === null) return { value: null };
  if (typeof value === 'string' && VALUE.test(value)) return { value: value.toUpperCase() };
  return { reason: 'value must be 16 hex digits (8 bytes), or null to clear it' };
}

/** Handles one message on `snsr/apps/{appId}/modules/{serial}/bidir/set`; never throws for bad input. */
export async function bidirCommand(topic: string, payload: string, set: BidirSetter): Promise<{ ok: true } | { ok: false; reason: string }> {
  const match = TOPIC.exec(topic);
  if (!match) return { ok: false, reason: 'topic is not snsr/apps/{appId}/modules/{serial}/bidir/set' };
  const parsed = valueOf(payload);
  if ('reason' in parsed) return { ok: false, reason: parsed.reason };
  const done = await set(Number(match[1]), match[2]!.toUpperCase(), parsed.value);
  return done ? { ok: true } : { ok: false, reason: `module ${match[2]!.toUpperCase()} is not attached to app ${match[1]}` };
}
