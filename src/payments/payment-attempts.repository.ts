import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { dateParam } from '../database/db-values';
import { PaymentAttempt, type AttemptResult } from './payment-attempt.entity';

@Injectable()
export class PaymentAttemptsRepository {
  constructor(@InjectRepository(PaymentAttempt) private readonly repo: Repository<PaymentAttempt>) {}

  private of(manager?: EntityManager): Repository<PaymentAttempt> {
    return manager ? manager.getRepository(PaymentAttempt) : this.repo;
  }

  /** One INSERT; a unique violation on `in_flight_transaction_id` means another attempt runs. */
  async insert(attempt: PaymentAttempt): Promise<void> {
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .into(PaymentAttempt)
      .values(attempt)
      .updateEntity(false)
      .execute();
    const raw = result.raw as { insertId?: number | string } | undefined;
    const id: unknown = raw?.insertId ?? result.identifiers[0]?.id;
    if (typeof id === 'number' || typeof id === 'string') attempt.id = String(id);
  }

  /** Records the outcome and releases the transaction for the next attempt. */
  async complete(
    referenceNumber: string,
    outcome: { result: AttemptResult; responseCode: string; amount: string },
    manager?: EntityManager,
  ): Promise<void> {
    await this.of(manager).update(
      { referenceNumber },
      { ...outcome, inFlightTransactionId: null, completedAt: new Date() },
    );
  }

  /** Drops an attempt that never reached the gateway. */
  async release(referenceNumber: string): Promise<void> {
    await this.repo.delete({ referenceNumber, result: 'pending' });
  }

  /** Marks attempts abandoned before `before` (a crashed replica) as errors, freeing the slot. */
  async abandonStale(transactionId: string, before: Date): Promise<number> {
    const result = await this.repo
      .createQueryBuilder()
      .update(PaymentAttempt)
      .set({
        result: 'error',
        responseCode: 'abandoned',
        inFlightTransactionId: null,
        completedAt: new Date(),
      })
      .where('in_flight_transaction_id = :id', { id: transactionId })
      .andWhere('created_at < :before', { before: dateParam(this.repo.manager, before) })
      .execute();
    return result.affected ?? 0;
  }

  listForTransaction(transactionId: string): Promise<PaymentAttempt[]> {
    return this.repo.find({ where: { transactionId }, order: { id: 'ASC' } });
  }

  /** The last successful attempt (what capture, void and refund apply to). */
  findLastSuccess(transactionId: string): Promise<PaymentAttempt | null> {
    return this.repo.findOne({ where: { transactionId, result: 'success' }, order: { id: 'DESC' } });
  }
}
