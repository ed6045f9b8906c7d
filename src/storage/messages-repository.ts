import type { Kysely } from 'kysely';
import type { Database, MessageRow, NewMessage } from './schema.js';

/** Which messages a history read covers: a whole module (its device and children) or one device. */
export type MessageScope = { moduleSerial: string; deviceId?: number };

/** Exclusive time bounds in epoch ms, newest first. */
export interface TimeRange {
  /** only messages strictly older than this */
  before?: number;
  /** only messages strictly newer than this */
  after?: number;
  limit: number;
}

export class MessagesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(message: NewMessage, db: Kysely<Database> = this.db): Promise<MessageRow> {
    return db.insertInto('messages').values(message).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * Newest first within the bounds: a keyset range scan on (module_serial|device_id, when_ms, id),
   * whose cost does not grow with the table.
   */
  async history(scope: MessageScope, range: TimeRange): Promise<MessageRow[]> {
    let query = this.db.selectFrom('messages').selectAll();
    query =
      scope.deviceId !== undefined
        ? query.where('device_id', '=', scope.deviceId)
        : query.where('module_serial', '=', scope.moduleSerial);
    if (range.before !== undefined) query = query.where('when_ms', '<', range.before);
    if (range.after !== undefined) query = query.where('when_ms', '>', range.after);
    const order = scope.deviceId !== undefined ? (['device_id', 'when_ms', 'id'] as const) : (['module_serial', 'when_ms', 'id'] as const);
    return query
      .orderBy(order[0], 'desc')
      .orderBy(order[1], 'desc')
      .orderBy(order[2], 'desc')
      .limit(range.limit)
      .execute();
  }

  async byId(id: number): Promise<MessageRow | undefined> {
    return this.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
  }
}
