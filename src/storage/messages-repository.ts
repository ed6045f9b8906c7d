import type { Kysely } from 'kysely';
import type { Database, MessageRow, NewMessage } from './schema.js';
import type { MessageScope, TimeRange } from './message-pages.js';

/** A device's newest message, as the children operation shows it. */
export type LastMessageRow = Pick<MessageRow, 'device_id' | 'when_ms' | 'frame' | 'code' | 'custom' | 'lvl' | 'station'>;

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

  /**
   * The newest message of each child of the module (index 1 and up) that has one: per child, one
   * step down its (device_id, when_ms, id) index, whatever the table's size.
   */
  async lastOfChildren(moduleSerial: string): Promise<LastMessageRow[]> {
    return this.db
      .selectFrom('devices as d')
      .innerJoin('messages as m', (join) =>
        join.on('m.id', '=', (eb) =>
          eb.selectFrom('messages as x').select('x.id').whereRef('x.device_id', '=', 'd.id').orderBy('x.when_ms', 'desc').orderBy('x.id', 'desc').limit(1),
        ),
      )
      .select(['m.device_id', 'm.when_ms', 'm.frame', 'm.code', 'm.custom', 'm.lvl', 'm.station'])
      .where('d.module_serial', '=', moduleSerial)
      .where('d.idx', '>', 0)
      .execute();
  }

  async byId(id: number): Promise<MessageRow | undefined> {
    return this.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Deletes every message and raw uplink of the module (its own device's and its children's) in one
   * transaction; rinfos and pending deliveries go with them by cascade. Messages first, so the raw
   * deletes do not null their `raw_id` one by one.
   */
  async clearModule(moduleSerial: string): Promise<{ messages: number; rawMessages: number }> {
    return this.db.transaction().execute(async (trx) => {
      const messages = await trx.deleteFrom('messages').where('module_serial', '=', moduleSerial).executeTakeFirst();
      const raw = await trx.deleteFrom('raw_messages').where('module_serial', '=', moduleSerial).executeTakeFirst();
      return { messages: Number(messages.numDeletedRows), rawMessages: Number(raw.numDeletedRows) };
    });
  }
}
