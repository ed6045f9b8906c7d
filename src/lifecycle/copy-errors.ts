/** The copy cannot go ahead, for a reason its message gives in the operator's words. */
export class CopyError extends Error {}

/**
 * A failure of one of the two databases (unreachable, refused, a statement failed), tagged with
 * which one: the CLI describes the cause and names the setting to check (SNSR_DATABASE_URL or --to).
 */
export class DatabaseSideError extends Error {
  constructor(
    readonly side: 'source' | 'target',
    readonly reason: unknown,
  ) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/** Runs a database operation, tagging its failure with the side it happened on (once: the innermost wins). */
export async function onSide<T>(side: 'source' | 'target', body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof DatabaseSideError || error instanceof CopyError) throw error;
    throw new DatabaseSideError(side, error);
  }
}
