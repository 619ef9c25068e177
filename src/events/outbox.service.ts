import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Transaction } from '../transactions/transaction.entity';
import type { EventDetails, EventName } from './event-types';

/**
 * The transactional outbox (SPEC §6): `record` is called inside the DB transaction that changes
 * the transaction's state, so the change, its event and its deliveries commit together.
 *
 * SEAM: the events issue (#4) implements the event and delivery rows and the dispatcher; until it
 * lands this writes nothing.
 */
@Injectable()
export class OutboxService {
  record(
    _manager: EntityManager,
    _transaction: Transaction,
    _event: EventName,
    _details: EventDetails = {},
  ): Promise<void> {
    return Promise.resolve();
  }
}
