import type { Summary } from './simulation.js';

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** One line, rewritten every second while the simulator runs. */
export function formatProgress(s: Summary): string {
  const { sent, accepted, rejected, failed } = s.callbacks;
  return (
    `${s.seconds.toFixed(0)} s  uplinks ${s.uplinks}  callbacks ${sent} (${accepted} accepted, ${rejected + failed} refused)  ` +
    `${s.callbacksPerSecond}/s  ack p50 ${ms(s.latencyMs.p50)} ms  p99 ${ms(s.latencyMs.p99)} ms`
  );
}

/** The closing summary, for people; `--json` prints the Summary object itself. */
export function formatSummary(s: Summary): string {
  const { sent, accepted, rejected, failed } = s.callbacks;
  const o = s.outcomes;
  const lines = [
    `simulated ${s.modules} module${s.modules === 1 ? '' : 's'} for ${s.seconds.toFixed(1)} s`,
    `uplinks     ${s.uplinks} sent (${s.repetitions} repetitions), ${s.lost} lost on purpose — ${s.uplinksPerSecond}/s`,
    `callbacks   ${sent} sent: ${accepted} accepted, ${rejected} rejected, ${failed} failed — ${s.callbacksPerSecond} accepted/s`,
    `snsr saw    ${o.new} new uplinks (${o.messages} messages, ${o.repetitions} repetitions, ${o.invalid} invalid), ` +
      `${o.duplicate} duplicates, ${o.replay} replays; ${o.acks} asked for a downlink, ${o.downlinks} got one`,
    `ack latency p50 ${ms(s.latencyMs.p50)} ms, p99 ${ms(s.latencyMs.p99)} ms, max ${ms(s.latencyMs.max)} ms`,
  ];
  for (const r of s.rejections) lines.push(`refused     ${r.count}× ${r.status === 0 ? 'network error' : `HTTP ${r.status}`}: ${r.message}`);
  return `${lines.join('\n')}\n`;
}

/** A progress line on stderr: rewritten in place on a terminal, a new line every ten seconds otherwise. */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): (summary: Summary) => void {
  let calls = 0;
  return (summary) => {
    calls++;
    if (stream.isTTY) stream.write(`\r\x1b[2K${formatProgress(summary)}`);
    else if (calls % 10 === 0) stream.write(`${formatProgress(summary)}\n`);
  };
}
