import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * The merchant events feed (contract §18): each event gets its place in the feed (`feed_position`)
 * once committed, from one counter row, so positions only ever grow in the order readers can see
 * them. Events already recorded get theirs on the first read, in the order they were written.
 */
export class EventFeed1764700000000 implements MigrationInterface {
  name = 'EventFeed1764700000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('events', [s.bigint('feed_position', { isNullable: true })]);
    await s.createIndex('events', 'uq_events_feed_position', ['feed_position'], true);
    await s.createTable('event_feed_counter', [s.int('id', { isPrimary: true }), s.bigint('last_position')]);
    await q.query('INSERT INTO event_feed_counter (id, last_position) VALUES (1, 0)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('event_feed_counter');
    await q.dropIndex('events', 'uq_events_feed_position');
    await q.dropColumn('events', 'feed_position');
  }
}
