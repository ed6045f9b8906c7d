/** What one dialect can do that the other cannot; queries branch on these flags, never on names. */
export interface Capabilities {
  dialect: 'sqlite' | 'postgres';
  /** `SELECT … FOR UPDATE SKIP LOCKED`: several processes may claim work from one table. */
  skipLocked: boolean;
  /**
   * Statements run inside this process, with no round trip to a server: two small statements cost
   * less than one that joins their reads.
   */
  embedded: boolean;
}
