const count = new Intl.NumberFormat();

/** "51–100 of 10,000" with Previous and Next; offsets are the list operation's. */
export function Pager({ offset, limit, total, onOffset, label }: { offset: number; limit: number; total: number; onOffset: (offset: number) => void; label: string }) {
  if (total === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label={label}>
      <span aria-live="polite">
        {count.format(offset + 1)}–{count.format(last)} of {count.format(total)}
      </span>
      <button type="button" class="button small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" class="button small" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
