import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { EntityManager, In, Repository } from 'typeorm';
import { insertedId, isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { Card } from './card.entity';

/** What a successful attempt that saves hands over (SPEC §15): never the number or the CVC. */
export interface CardToSave {
  customerId: string;
  pgCode: string;
  brand: string;
  nameOnCard: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  fingerprint: string;
  gatewayToken: string;
  agreementId: string | null;
}

/** A new card token: 32 random bytes, base64url (43 characters), never derived from the number. */
export const newCardToken = (): string => randomBytes(32).toString('base64url');

@Injectable()
export class CardsRepository {
  constructor(
    @InjectRepository(Card) private readonly repo: Repository<Card>,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Saves a card inside the caller's unit of work. The same card (keyed hash of the number) saved
   * again by the same customer on the same gateway stays one card: it gets the new gateway token,
   * expiry and name, and the agreement joins its list.
   */
  async save(manager: EntityManager, input: CardToSave, now: Date = new Date()): Promise<Card> {
    const repo = manager.getRepository(Card);
    const where = { customerId: input.customerId, pgCode: input.pgCode, fingerprint: input.fingerprint };
    const existing = await repo.findOne({ where });
    if (!existing) {
      const card = Object.assign(new Card(), {
        token: newCardToken(),
        customerId: input.customerId,
        pgCode: input.pgCode,
        brand: input.brand,
        nameOnCard: input.nameOnCard,
        last4: input.last4,
        expiryMonth: input.expiryMonth,
        expiryYear: input.expiryYear,
        fingerprint: input.fingerprint,
        gatewayToken: input.gatewayToken,
        agreements: input.agreementId ? [input.agreementId] : [],
        isPreferred: false,
        createdAt: now,
        updatedAt: now,
      } satisfies Omit<Card, 'id'>);
      try {
        const result = await manager
          .createQueryBuilder()
          .insert()
          .into(Card)
          .values(card)
          .updateEntity(false)
          .execute();
        card.id = insertedId(result);
        return card;
      } catch (error) {
        // The same card saved at the same moment by another attempt: that one is the card.
        if (!isUniqueViolation(error)) throw error;
      }
    }
    const card = existing ?? (await repo.findOneOrFail({ where }));
    const agreements =
      input.agreementId && !card.agreements.includes(input.agreementId)
        ? [...card.agreements, input.agreementId]
        : card.agreements;
    const changes = {
      brand: input.brand,
      nameOnCard: input.nameOnCard,
      expiryMonth: input.expiryMonth,
      expiryYear: input.expiryYear,
      gatewayToken: input.gatewayToken,
      agreements,
      updatedAt: now,
    };
    await repo.update({ id: card.id }, changes);
    return Object.assign(card, changes);
  }

  /** A customer's cards on these gateways, oldest first. */
  list(customerId: string, pgCodes: string[]): Promise<Card[]> {
    if (pgCodes.length === 0) return Promise.resolve([]);
    return this.repo.find({ where: { customerId, pgCode: In(pgCodes) }, order: { id: 'ASC' } });
  }

  /** By token; inside a unit of work when `manager` is given. */
  findByToken(token: string, manager?: EntityManager): Promise<Card | null> {
    return (manager?.getRepository(Card) ?? this.repo).findOne({ where: { token } });
  }

  async remove(card: Card): Promise<void> {
    await this.uow.retrying(() => this.repo.delete({ id: card.id }));
  }
}
