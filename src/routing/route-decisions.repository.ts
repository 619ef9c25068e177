import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { UnitOfWork } from '../database/unit-of-work';
import { RouteDecision, type RouteOutcome } from './route-decision.entity';

/** A route decision as retrieve and webhooks show it (contract §21 `routing`). */
export interface RouteDecisionView {
  gateway: string;
  outcome: RouteOutcome;
  at: string;
}

export const toDecisionView = (decision: RouteDecision): RouteDecisionView => ({
  gateway: decision.gatewayCode,
  outcome: decision.outcome,
  at: decision.createdAt.toISOString(),
});

/** What routing gateways did for each transaction (contract §21), in the order they did it. */
@Injectable()
export class RouteDecisionsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  async record(decisions: readonly Omit<RouteDecision, 'id'>[]): Promise<void> {
    if (decisions.length === 0) return;
    await this.uow.retrying((manager) =>
      manager
        .createQueryBuilder()
        .insert()
        .into(RouteDecision)
        .values(decisions.map((decision) => ({ ...decision })))
        .execute(),
    );
  }

  /** A transaction's decisions, oldest first. */
  list(transactionId: string): Promise<RouteDecision[]> {
    return this.uow.retrying((manager) => this.listIn(manager, transactionId));
  }

  /** {@link list} inside the caller's unit (an event's payload). */
  listIn(manager: EntityManager, transactionId: string): Promise<RouteDecision[]> {
    return manager.getRepository(RouteDecision).find({ where: { transactionId }, order: { id: 'ASC' } });
  }
}
