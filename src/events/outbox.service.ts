import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { attachmentUrl } from '../attachments/attachments.service';
import { AdminConfig } from '../admin-config/admin-config.entity';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { REFERENCE_DATA_TTL_MS, TtlCache } from '../common/cache/ttl-cache';
import { AppConfig } from '../config/app-config';
import { bulkInsert } from '../database/bulk-insert';
import { insertedId } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { CurrenciesService } from '../currencies/currencies.service';
import { GatewaysService } from '../gateways/gateways.service';
import type { Transaction } from '../transactions/transaction.entity';
import { checkoutUrl } from '../transactions/transaction.mapper';
import { Delivery, DeliveryChannel, newDeliveryRow } from './delivery.entity';
import { buildEventPayload } from './event-payload';
import { OutboxEvent } from './event.entity';
import type { EventDetails, EventName } from './event-types';

/** Rows per multi-row INSERT in `recordMany` (well under SQLite's bound-parameter limit). */
const BULK_ROWS = 500;

interface PlannedDelivery {
  channel: DeliveryChannel;
  target: string;
  skippedReason: string | null;
}

/**
 * The transactional outbox (SPEC §6): `record` is called inside the DB transaction that changes
 * the transaction's state, so the change, its event (with the next per-transaction `sequence`)
 * and one delivery row per channel and target commit together — or not at all. The dispatcher
 * sends them after the commit.
 */
@Injectable()
export class OutboxService {
  private readonly commitListeners: (() => void)[] = [];
  /** Registered with the unit of work that records deliveries: runs once it has committed. */
  private readonly committed = (): void => {
    for (const listener of this.commitListeners) listener();
  };
  /**
   * The merchant name changes rarely; reading the settings for every event cost more than the
   * event itself. Like the currency and gateway lookups, a few seconds of staleness only affects
   * the display fields of events recorded right after an admin change.
   */
  private readonly settings = new TtlCache<AdminConfig>(REFERENCE_DATA_TTL_MS);

  constructor(
    private readonly config: AppConfig,
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly adminConfig: AdminConfigService,
    private readonly uow: UnitOfWork,
  ) {}

  /** Called once a unit of work that recorded deliveries has committed (to send them right away). */
  onCommitted(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  async record(
    manager: EntityManager,
    transaction: Transaction,
    event: EventName,
    details: EventDetails = {},
  ): Promise<void> {
    const sequence = await this.nextSequence(manager, transaction.id);
    const now = new Date();
    const row = await this.eventRow(manager, transaction, event, sequence, details, now);
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(OutboxEvent)
      .values(row as QueryDeepPartialEntity<OutboxEvent>)
      .updateEntity(false)
      .execute();
    const eventRowId = insertedId(inserted);
    const deliveries = this.plan(transaction, event).map((p) =>
      newDeliveryRow({
        eventRowId,
        channel: p.channel,
        target: p.target,
        skippedReason: p.skippedReason,
        now,
      }),
    );
    if (deliveries.length > 0) {
      await manager
        .createQueryBuilder()
        .insert()
        .into(Delivery)
        .values(deliveries)
        .updateEntity(false)
        .execute();
      this.uow.afterCommit(this.committed);
    }
  }

  /**
   * `record` for many transactions at once, all with the same event (the expiry job's batches):
   * the same event rows, payloads and deliveries as one `record` call per transaction, written
   * set-based: one counter UPDATE and one read for the sequences, multi-row INSERTs for the events
   * and their deliveries. Call it inside the DB transaction that changed the rows, as `record`.
   */
  async recordMany(
    manager: EntityManager,
    transactions: readonly Transaction[],
    event: EventName,
    details: EventDetails = {},
  ): Promise<void> {
    const now = new Date();
    for (let start = 0; start < transactions.length; start += BULK_ROWS) {
      const chunk = transactions.slice(start, start + BULK_ROWS);
      const sequences = await this.nextSequences(
        manager,
        chunk.map((tx) => tx.id),
      );
      const rows: Omit<OutboxEvent, 'id'>[] = [];
      for (const tx of chunk) {
        const sequence = sequences.get(String(tx.id));
        if (sequence === undefined) throw new Error(`Transaction ${tx.id} not found for its event`);
        rows.push(await this.eventRow(manager, tx, event, sequence, details, now));
      }
      await bulkInsert(manager, OutboxEvent, rows);

      const planned = chunk.flatMap((tx, i) =>
        this.plan(tx, event).map((p) => ({ p, eventId: rows[i].eventId })),
      );
      if (planned.length === 0) continue;
      // The generated ids of a multi-row INSERT are not reliably consecutive: read them back.
      const ids = await manager
        .getRepository(OutboxEvent)
        .createQueryBuilder('e')
        .select(['e.id AS id', 'e.event_id AS event_id'])
        .where('e.event_id IN (:...eventIds)', { eventIds: [...new Set(planned.map((x) => x.eventId))] })
        .getRawMany<{ id: string | number; event_id: string }>();
      const rowIdOf = new Map(ids.map((r) => [r.event_id, String(r.id)]));
      for (let d = 0; d < planned.length; d += BULK_ROWS) {
        await bulkInsert(
          manager,
          Delivery,
          planned.slice(d, d + BULK_ROWS).map(({ p, eventId }) =>
            newDeliveryRow({
              eventRowId: rowIdOf.get(eventId)!,
              channel: p.channel,
              target: p.target,
              skippedReason: p.skippedReason,
              now,
            }),
          ),
        );
      }
      this.uow.afterCommit(this.committed);
    }
  }

  /**
   * The event row of one transaction: the SPEC §6 payload snapshot plus what notifications need.
   * Reference data is read through the unit's own manager when not already cached (SPEC §17).
   */
  private async eventRow(
    manager: EntityManager,
    tx: Transaction,
    event: EventName,
    sequence: number,
    details: EventDetails,
    now: Date,
  ): Promise<Omit<OutboxEvent, 'id'>> {
    const [currency, gateway, settings] = await Promise.all([
      this.currencies.lookup(tx.currencyCode, manager),
      this.gateways.lookup(tx.pgCode, manager),
      this.settings.getLoaded('settings', () => this.adminConfig.get(manager)),
    ]);
    const eventId = randomUUID();
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
      }),
      context: {
        language: tx.language,
        checkout_url: checkoutUrl(this.config.publicBaseUrl, tx.sessionId),
        attachment_url: attachmentUrlOf(tx, this.config.publicBaseUrl),
        merchant_name: settings.merchantName,
      },
      createdAt: now,
    };
  }

  /** `nextSequence` for many transactions: one UPDATE and one SELECT; id → its new sequence. */
  private async nextSequences(manager: EntityManager, ids: string[]): Promise<Map<string, number>> {
    const marks = ids.map(() => '?').join(', ');
    await manager.query(
      `UPDATE transactions SET event_sequence = event_sequence + 1 WHERE id IN (${marks})`,
      ids,
    );
    const rows = await manager.query<{ id: number | string; event_sequence: number | string }[]>(
      `SELECT id, event_sequence FROM transactions WHERE id IN (${marks})`,
      ids,
    );
    return new Map(rows.map((r) => [String(r.id), Number(r.event_sequence)]));
  }

  /**
   * Bumps the transaction's event counter and reads it back in one statement. The UPDATE locks the
   * transaction's row until commit (MySQL), and SQLite serialises writers, so two events never
   * share a number.
   */
  private async nextSequence(manager: EntityManager, transactionId: string): Promise<number> {
    if (manager.connection.options.type === 'mysql') {
      // LAST_INSERT_ID(expr) hands the new value back in the statement's own result.
      const result = await manager.query<{ insertId: number | string; affectedRows: number }>(
        `UPDATE transactions SET event_sequence = LAST_INSERT_ID(event_sequence + 1) WHERE id = ?`,
        [transactionId],
      );
      if (result.affectedRows !== 1) throw new Error(`Transaction ${transactionId} not found for its event`);
      return Number(result.insertId);
    }
    const rows = await manager.query<{ event_sequence: number | string }[]>(
      `UPDATE transactions SET event_sequence = event_sequence + 1 WHERE id = ? RETURNING event_sequence`,
      [transactionId],
    );
    if (rows.length === 0) throw new Error(`Transaction ${transactionId} not found for its event`);
    return Number(rows[0].event_sequence);
  }

  /** One delivery per channel and target the transaction asked for (SPEC §6). */
  private plan(tx: Transaction, event: EventName): PlannedDelivery[] {
    const planned: PlannedDelivery[] = [];
    if (tx.webhookUrl) planned.push({ channel: 'webhook', target: tx.webhookUrl, skippedReason: null });
    const wants = (list: string[] | undefined) => (list ?? []).includes(event);
    if (wants(tx.notifications?.email)) {
      const recipients = [...new Set([tx.customerEmail, ...(tx.emailRecipients ?? [])].filter(Boolean))];
      for (const target of recipients) {
        planned.push({
          channel: 'email',
          target,
          skippedReason: this.config.smtpUrl ? null : 'No e-mail transport: SMTP_URL is not configured.',
        });
      }
    }
    if (wants(tx.notifications?.sms) && tx.customerPhone) {
      planned.push({
        channel: 'sms',
        target: tx.customerPhone,
        skippedReason: this.config.smsProviderUrl
          ? null
          : 'No SMS transport: SMS_PROVIDER_URL is not configured.',
      });
    }
    return planned;
  }
}

/** The attachment's link for notifications: its short link when there is one, else its URL. */
function attachmentUrlOf(tx: Transaction, publicBaseUrl: string): string | null {
  if (tx.attachmentShortUrl) return tx.attachmentShortUrl;
  return tx.attachmentToken && tx.attachmentName
    ? attachmentUrl(publicBaseUrl, tx.attachmentToken, tx.attachmentName)
    : null;
}
