import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` of `total` units of work finished. */
  update(done: number, total: number): void;
  stop(): void;
}

/**
 * A progress bar on stderr for long work, drawn only when stderr is a terminal: piped or logged
 * output stays free of control characters.
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total}`, stream, hideCursor: true, fps: 10 },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
        return;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
