import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The single row (id = 1) holding the last feed position given (contract §18). */
@Entity({ name: 'event_feed_counter' })
export class EventFeedCounter {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ name: 'last_position', type: 'bigint' })
  lastPosition: string;
}
