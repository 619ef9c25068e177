import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { EntityManager, In, Repository } from 'typeorm';
import { insertedId, isUniqueViolation } from '../database/db-values';
import { CardAgreementUse } from './card-agreement-use.entity';
import { Card } from './card.entity';

/** What a successful attempt that saves hands over (contract §15): never the number or the CVC. */
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

/**
 * The fingerprint of a card bound to one exact customer id: used only when a near-equal customer
 * id (equal under a PAD SPACE collation) already holds the card's plain fingerprint.
 */
function exactCustomerFingerprint(input: CardToSave): string {
  return createHmac('sha256', input.fingerprint).update(input.customerId, 'utf8').digest('hex');
}

/** How `card_agreement_uses` keys an agreement: SHA-256 of its exact id (no PAD SPACE equality). */
export const agreementHash = (agreementId: string): string =>
  createHash('sha256').update(agreementId, 'utf8').digest('hex');

/** Ids compare as numbers (bigint: a string on MySQL, a number on SQLite). */
const compareIds = (a: string | number, b: string | number): number => {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

const isExactly = (card: Card, customerId: string, pgCode: string): boolean =>
  card.customerId === customerId && card.pgCode === pgCode;

function newCard(input: CardToSave, fingerprint: string, now: Date): Card {
  return Object.assign(new Card(), {
    token: newCardToken(),
    customerId: input.customerId,
    pgCode: input.pgCode,
    brand: input.brand,
    nameOnCard: input.nameOnCard,
    last4: input.last4,
    expiryMonth: input.expiryMonth,
    expiryYear: input.expiryYear,
    fingerprint,
    gatewayToken: input.gatewayToken,
    agreements: input.agreementId ? [input.agreementId] : [],
    isPreferred: false,
    createdAt: now,
    updatedAt: now,
    lastUsedAt: now,
  } satisfies Omit<Card, 'id'>);
}

@Injectable()
export class CardsRepository {
  constructor(
    @InjectRepository(Card) private readonly repo: Repository<Card>,
    @InjectRepository(CardAgreementUse) private readonly uses: Repository<CardAgreementUse>,
  ) {}

  /**
   * Saves a card inside the caller's unit of work. The same card (keyed hash of the number) saved
   * again by the same customer on the same gateway stays one card: it gets the new gateway token,
   * expiry and name, and the agreement joins its list.
   *
   * Customer ids compare exactly (contract §3). MySQL's PAD SPACE collations make `"cust-x "` equal
   * `"cust-x"` in the unique key (customer, gateway, fingerprint): when a near-equal customer id
   * holds the key, the card is kept under a fingerprint bound to this exact customer id instead.
   */
  async save(manager: EntityManager, input: CardToSave, now: Date = new Date()): Promise<Card> {
    const repo = manager.getRepository(Card);
    const card = await this.store(manager, repo, input, now);
    if (input.agreementId) await this.recordAgreementUse(manager, card.id, input.agreementId, now);
    return card;
  }

  /** Inserts the card, or refreshes the one it already is. */
  private async store(
    manager: EntityManager,
    repo: Repository<Card>,
    input: CardToSave,
    now: Date,
  ): Promise<Card> {
    const existing = await this.findSame(repo, input);
    if (existing) return this.refresh(repo, existing, input, now);
    for (const fingerprint of [input.fingerprint, exactCustomerFingerprint(input)]) {
      const card = newCard(input, fingerprint, now);
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
        if (!isUniqueViolation(error)) throw error;
      }
      // The same card saved at the same moment by another attempt: that one is the card. Else a
      // near-equal customer id holds the key: try the fingerprint bound to this customer id.
      const raced = await this.findSame(repo, input);
      if (raced) return this.refresh(repo, raced, input, now);
    }
    throw new Error('A saved card could be neither inserted nor found');
  }

  /** This exact customer's card with this fingerprint on this gateway (under either fingerprint). */
  private async findSame(repo: Repository<Card>, input: CardToSave): Promise<Card | null> {
    const fingerprints = [input.fingerprint, exactCustomerFingerprint(input)];
    const rows = await repo.find({
      where: { customerId: input.customerId, pgCode: input.pgCode, fingerprint: In(fingerprints) },
      order: { id: 'ASC' },
    });
    return rows.find((card) => isExactly(card, input.customerId, input.pgCode)) ?? null;
  }

  /** The same card saved again: the new gateway token, expiry and name; the agreement joins. */
  private async refresh(repo: Repository<Card>, card: Card, input: CardToSave, now: Date): Promise<Card> {
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
      lastUsedAt: now,
    };
    await repo.update({ id: card.id }, changes);
    return Object.assign(card, changes);
  }

  /**
   * A charge of a saved card (a page payment with it or an auto-debit), recorded with the attempt
   * that makes it, whatever its result: the card was used now, and for the transaction's agreement
   * when it has one (contract §15).
   */
  async recordCharge(
    manager: EntityManager,
    token: string,
    agreementId: string | null,
    now: Date = new Date(),
  ): Promise<void> {
    const card = await this.findByTokenIn(manager, token);
    if (!card) return;
    await manager.getRepository(Card).update({ id: card.id }, { lastUsedAt: now });
    if (agreementId) await this.recordAgreementUse(manager, card.id, agreementId, now);
  }

  /** One row per card and agreement: its time moves on; two first uses at once meet at the unique key. */
  private async recordAgreementUse(
    manager: EntityManager,
    cardId: string,
    agreementId: string,
    now: Date,
  ): Promise<void> {
    const repo = manager.getRepository(CardAgreementUse);
    const key = { cardId, agreementHash: agreementHash(agreementId) };
    if (!(await repo.exists({ where: key }))) {
      try {
        await manager
          .createQueryBuilder()
          .insert()
          .into(CardAgreementUse)
          .values({ ...key, agreementId, lastUsedAt: now })
          .updateEntity(false)
          .execute();
        return;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    await repo.update(key, { lastUsedAt: now });
  }

  /**
   * A customer's cards on these gateways, most recently used first (contract §15). The customer id
   * compares exactly (contract §3): the rows a PAD SPACE collation adds for `"cust-x "` (cust-x's)
   * are dropped here.
   */
  async list(customerId: string, pgCodes: string[]): Promise<Card[]> {
    if (pgCodes.length === 0) return [];
    // The newer card first when two were used at the same moment.
    const rows = await this.repo.find({
      where: { customerId, pgCode: In(pgCodes) },
      order: { lastUsedAt: 'DESC', id: 'DESC' },
    });
    return rows.filter((card) => card.customerId === customerId && pgCodes.includes(card.pgCode));
  }

  /**
   * Of these cards, the one last used for this agreement (saved under it, or charged for a
   * transaction that carries it), or null when none was (contract §15).
   */
  async lastUsedFor(agreementId: string, cards: Card[]): Promise<Card | null> {
    if (cards.length === 0) return null;
    const uses = await this.uses.find({
      where: { agreementHash: agreementHash(agreementId), cardId: In(cards.map((card) => card.id)) },
    });
    const best = uses
      .filter((use) => use.agreementId === agreementId)
      .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime() || compareIds(b.cardId, a.cardId))[0];
    return best ? (cards.find((card) => String(card.id) === String(best.cardId)) ?? null) : null;
  }

  /** By token, compared exactly (outside any unit of work). */
  findByToken(token: string): Promise<Card | null> {
    return this.byToken(this.repo, token);
  }

  /** {@link findByToken} inside the caller's unit of work. */
  findByTokenIn(manager: EntityManager, token: string): Promise<Card | null> {
    return this.byToken(manager.getRepository(Card), token);
  }

  private async byToken(repo: Repository<Card>, token: string): Promise<Card | null> {
    const card = await repo.findOne({ where: { token } });
    return card?.token === token ? card : null;
  }

  /** Inside the caller's unit of work: deletes the card and what is recorded of its uses. */
  async remove(manager: EntityManager, card: Card): Promise<void> {
    await manager.getRepository(CardAgreementUse).delete({ cardId: card.id });
    await manager.getRepository(Card).delete({ id: card.id });
  }
}
