// A measured figure beside its target, printed so that the digits shown never contradict the verdict:
// rounded toward the side of the target where it would miss (0.2499 against a target of ≥ 0.25
// prints as 0.249 and MISSED, never as 0.250 and MISSED; 24.999 against < 25 as 24.99 and met).
// The benches print these with one digit more than their tables, so the two read alike.

export interface Checked {
  /** The figure, rounded so as to agree with the verdict, with its unit. */
  shown: string;
  /** `target ≥ 0.4: met`, or `MISSED`. */
  verdict: string;
}

// The nudge keeps a value already at those digits where it is (0.29 * 100 is 28.999999999999996).
const down = (value: number, digits: number): string => (Math.floor(value * 10 ** digits + 1e-9) / 10 ** digits).toFixed(digits);
const up = (value: number, digits: number): string => (Math.ceil(value * 10 ** digits - 1e-9) / 10 ** digits).toFixed(digits);
const outcome = (met: boolean): string => (met ? 'met' : 'MISSED');

/** A figure that must reach `goal`. */
export function atLeast(value: number, goal: number, digits: number, unit = ''): Checked {
  return { shown: `${down(value, digits)}${unit}`, verdict: `target ≥ ${goal}${unit}: ${outcome(value >= goal)}` };
}

/** A figure that must not pass `goal` (rounded up), or with `strict` must stay under it (rounded down). */
export function atMost(value: number, goal: number, digits: number, unit = '', strict = false): Checked {
  const met = strict ? value < goal : value <= goal;
  const shown = strict ? down(value, digits) : up(value, digits);
  return { shown: `${shown}${unit}`, verdict: `target ${strict ? '<' : '≤'} ${goal}${unit}: ${outcome(met)}` };
}

/** `shown (verdict)`. */
export const checked = ({ shown, verdict }: Checked): string => `${shown} (${verdict})`;
