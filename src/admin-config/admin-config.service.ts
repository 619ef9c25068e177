import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-values';
import { AdminConfig } from './admin-config.entity';

export interface AdminConfigChanges {
  autoExpire?: boolean;
  defaultRedirectUrl?: string | null;
  merchantName?: string;
  webhookSigningKey?: string | null;
}

const ROW_ID = 1;

/** Run-time settings (one row). Read fresh on every use, so a change reaches every replica. */
@Injectable()
export class AdminConfigService {
  constructor(
    @InjectRepository(AdminConfig) private readonly rows: Repository<AdminConfig>,
    private readonly config: AppConfig,
  ) {}

  /** The settings as stored now; pass the unit's manager when called inside a unit of work. */
  async get(manager?: EntityManager): Promise<AdminConfig> {
    const repo = manager ? manager.getRepository(AdminConfig) : this.rows;
    const row = await repo.findOne({ where: { id: ROW_ID } });
    return row ?? this.defaults();
  }

  /**
   * Writes only the sent settings (two replicas changing different settings do not overwrite each
   * other). The row is created with the defaults on first write; a concurrent first write loses
   * the insert race and updates instead.
   */
  async update(changes: AdminConfigChanges): Promise<AdminConfig> {
    const sent = { ...stripUndefined(changes), updatedAt: new Date() };
    const result = await this.rows.update({ id: ROW_ID }, sent);
    if (!result.affected) {
      try {
        await this.rows.insert({ ...this.defaults(), ...sent });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        await this.rows.update({ id: ROW_ID }, sent);
      }
    }
    return this.get();
  }

  /** The key webhooks are signed with: the admin-set one, else WEBHOOK_SIGNING_KEY, else none. */
  async webhookSigningKey(): Promise<string | null> {
    return (await this.get()).webhookSigningKey ?? this.config.webhookSigningKey;
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
