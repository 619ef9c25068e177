import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { REFERENCE_DATA_TTL_MS, TtlCache } from '../common/cache/ttl-cache';
import { AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { AdminConfig } from './admin-config.entity';

export interface AdminConfigChanges {
  autoExpire?: boolean;
  defaultRedirectUrl?: string | null;
  merchantName?: string;
  webhookSigningKey?: string | null;
}

const ROW_ID = 1;

/**
 * Run-time settings (one row). `get` reads them fresh; the webhook signing key, read for every
 * webhook sent, is kept per replica for a few seconds like other reference data (a change made on
 * this replica applies at once, on the others within {@link REFERENCE_DATA_TTL_MS}).
 */
@Injectable()
export class AdminConfigService {
  private readonly signingKey = new TtlCache<string | null>(REFERENCE_DATA_TTL_MS);

  constructor(
    @InjectRepository(AdminConfig) private readonly rows: Repository<AdminConfig>,
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  /** The settings as stored now (outside any unit of work). */
  get(): Promise<AdminConfig> {
    return this.read(this.rows);
  }

  /** {@link get} inside the caller's unit of work. */
  getIn(manager: EntityManager): Promise<AdminConfig> {
    return this.read(manager.getRepository(AdminConfig));
  }

  private async read(repo: Repository<AdminConfig>): Promise<AdminConfig> {
    const row = await repo.findOne({ where: { id: ROW_ID } });
    return row ?? this.defaults();
  }

  /**
   * Writes only the sent settings (two replicas changing different settings do not overwrite each
   * other). The row is created with the defaults on first write; a concurrent first write loses
   * the insert race and updates instead. Each statement is run again on a deadlock, lock-wait
   * timeout or Galera conflict (contract §17).
   */
  async update(changes: AdminConfigChanges): Promise<AdminConfig> {
    const sent = { ...stripUndefined(changes), updatedAt: new Date() };
    const updateRow = () =>
      this.uow.retrying((m) => m.withRepository(this.rows).update({ id: ROW_ID }, sent));
    const result = await updateRow();
    if (!result.affected) {
      try {
        await this.uow.retrying((m) => m.withRepository(this.rows).insert({ ...this.defaults(), ...sent }));
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        await updateRow();
      }
    }
    this.signingKey.clear();
    return this.get();
  }

  /** The key webhooks are signed with: the admin-set one, else WEBHOOK_SIGNING_KEY, else none. */
  webhookSigningKey(): Promise<string | null> {
    return this.signingKey.get(
      'key',
      async () => (await this.get()).webhookSigningKey ?? this.config.webhookSigningKey,
    );
  }

  private defaults(): AdminConfig {
    return this.rows.create({
      id: ROW_ID,
      autoExpire: true,
      defaultRedirectUrl: null,
      merchantName: 'Checkout',
      webhookSigningKey: null,
      updatedAt: new Date(),
    });
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
