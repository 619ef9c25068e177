import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AdminConfig } from '../../admin-config/admin-config.entity';
import { AdminConfigService } from '../../admin-config/admin-config.service';
import { attachmentUrl } from '../../attachments/attachments.service';
import { REFERENCE_DATA_TTL_MS, TtlCache } from '../../common/cache/ttl-cache';
import { AppConfig } from '../../config/app-config';
import { CurrenciesService } from '../../currencies/currencies.service';
import type { EventEnvelope } from '../../events/event-envelope';
import type { EventName } from '../../events/event-types';
import { OutboxService } from '../../events/outbox.service';
import { GatewaysService } from '../../gateways/gateways.service';
import { RouteDecisionsRepository, toDecisionView } from '../../routing/route-decisions.repository';
import { isRouter } from '../../routing/router-settings';
import type { Transaction } from '../transaction.entity';
import { checkoutUrl } from '../transaction-urls';
import { TransactionsRepository } from '../transactions.repository';
import { planDeliveries } from './event-deliveries';
import { buildEventPayload, type EventDetails, type Initiator } from './event-payload';
import { User } from '../../auth/users/user.entity';

/**
 * A transaction's events (contract §6): called inside the DB transaction that changes its state,
 * builds each event — the next number of the transaction's sequence, the payload snapshot, what
 * notifications need, the deliveries it asks for — and hands it to the outbox to record.
 */
@Injectable()
export class TransactionEvents {
  /**
   * The merchant name changes rarely; reading the settings for every event cost more than the
   * event itself. Like the currency and gateway lookups, a few seconds of staleness only affects
   * the display fields of events recorded right after an admin change.
   */
  private readonly settings = new TtlCache<AdminConfig>(REFERENCE_DATA_TTL_MS);
  /** Usernames of the Basic users who created transactions (the webhook's `initiator`). */
  private readonly initiators = new TtlCache<Initiator | null>(REFERENCE_DATA_TTL_MS);

  constructor(
    private readonly config: AppConfig,
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly adminConfig: AdminConfigService,
    private readonly transactions: TransactionsRepository,
    private readonly outbox: OutboxService,
    private readonly routeDecisions: RouteDecisionsRepository,
  ) {}

  async record(
    manager: EntityManager,
    tx: Transaction,
    event: EventName,
    details: EventDetails = {},
  ): Promise<void> {
    const sequence = await this.transactions.nextEventSequence(tx.id, manager);
    await this.outbox.record(manager, await this.envelope(manager, tx, event, sequence, details, new Date()));
  }

  /**
   * The `created` event of a transaction inserted in this same unit with `event_sequence = 1`: its
   * number is known, so the counter costs no round trip.
   */
  async recordCreated(manager: EntityManager, tx: Transaction): Promise<void> {
    if (tx.eventSequence !== 1)
      throw new Error('recordCreated: the transaction must be inserted with sequence 1');
    await this.outbox.record(manager, await this.envelope(manager, tx, 'created', 1, {}, new Date()));
  }

  /**
   * `record` for many transactions at once, all with the same event (the expiry job's batches):
   * one counter UPDATE and one read for the sequences, then the outbox's multi-row INSERTs.
   */
  async recordMany(
    manager: EntityManager,
    txs: readonly Transaction[],
    event: EventName,
    details: EventDetails = {},
  ): Promise<void> {
    if (txs.length === 0) return;
    const now = new Date();
    const sequences = await this.transactions.nextEventSequences(
      txs.map((tx) => tx.id),
      manager,
    );
    const envelopes: EventEnvelope[] = [];
    for (const tx of txs) {
      const sequence = sequences.get(String(tx.id));
      if (sequence === undefined) throw new Error(`Transaction ${tx.id} not found for its event`);
      envelopes.push(await this.envelope(manager, tx, event, sequence, details, now));
    }
    await this.outbox.recordMany(manager, envelopes);
  }

  /** Reference data is read through the unit's own manager when not already cached (contract §17). */
  private async envelope(
    manager: EntityManager,
    tx: Transaction,
    event: EventName,
    sequence: number,
    details: EventDetails,
    now: Date,
  ): Promise<EventEnvelope> {
    const [currency, gateway, settings, initiator] = await Promise.all([
      this.currencies.lookupIn(manager, tx.currencyCode),
      this.gateways.lookupIn(manager, tx.pgCode),
      this.settings.getLoaded('settings', () => this.adminConfig.getIn(manager)),
      this.initiatorOf(tx, manager),
    ]);
    const routing = isRouter(gateway)
      ? (await this.routeDecisions.listIn(manager, tx.id)).map(toDecisionView)
      : undefined;
    const eventId = randomUUID();
    const base = this.config.publicBaseUrl;
    return {
      eventId,
      transactionId: tx.id,
      sessionId: tx.sessionId,
      sequence,
      event,
      payload: buildEventPayload({
        tx,
        event,
        eventId,
        sequence,
        details,
        gateway,
        digits: currency?.digits ?? 2,
        at: now,
        initiator,
        routing,
      }),
      context: {
        language: tx.language,
        checkout_url: checkoutUrl(base, tx.sessionId),
        attachment_url: attachmentUrlOf(tx, base),
        merchant_name: settings.merchantName,
      },
      deliveries: planDeliveries(tx, event, this.config, details.merchantOnly === true),
      createdAt: now,
    };
  }

  private initiatorOf(tx: Transaction, manager: EntityManager): Promise<Initiator | null> {
    const id = tx.initiatorId;
    if (id === null) return Promise.resolve(null);
    return this.initiators.getLoaded(String(id), async () => {
      const user = await manager
        .getRepository(User)
        .findOne({ where: { id }, select: { id: true, username: true } });
      return user ? { id: user.id, username: user.username } : null;
    });
  }
}

/** The attachment's link for notifications: its short link when there is one, else its URL. */
function attachmentUrlOf(tx: Transaction, publicBaseUrl: string): string | null {
  if (tx.attachmentShortUrl) return tx.attachmentShortUrl;
  return tx.attachmentToken && tx.attachmentName
    ? attachmentUrl(publicBaseUrl, tx.attachmentToken, tx.attachmentName)
    : null;
}
