import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { FieldErrors, NotFound } from '../common/errors/domain-errors';
import { REFERENCE_DATA_TTL_MS, TtlCache } from '../common/cache/ttl-cache';
import { isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import type { SettingValue } from './gateway-drivers';
import { Gateway, GatewayFlow, GatewayOperation, GatewayType } from './gateway.entity';

export interface GatewayInput {
  code: string;
  name: string;
  pg: string;
  type: GatewayType;
  operation: GatewayOperation;
  currencies: string[];
  feeFixed: string;
  feePercent: string;
  icon: string;
  flow: GatewayFlow;
  requireCustomerPhone: boolean;
  isActive: boolean;
  /** Can save cards (contract §15); a new gateway defaults to its type being `sandbox`. */
  tokenizable: boolean;
  /** Shown to the customer on the payment page (cash gateways: where and how to pay). */
  instructions: string;
  /** The driver's plain settings (contract §20); absent: none. */
  settings?: Record<string, SettingValue> | null;
  /** The driver's secrets, already encrypted (SecretsCipher); absent: none. */
  secrets?: Record<string, string> | null;
}

/** What a new gateway takes when not given (admin API, first-start bootstrap). */
export const GATEWAY_DEFAULTS = {
  operation: 'purchase',
  feeFixed: '0',
  feePercent: '0',
  icon: '',
  flow: 'redirect',
  requireCustomerPhone: false,
  isActive: true,
  instructions: '',
} as const satisfies Partial<GatewayInput>;

/**
 * Gateway settings instances ("pg codes") that transactions are paid through. Each write commits
 * on its own and is run again on a deadlock, lock-wait timeout or Galera conflict (contract §17).
 */
@Injectable()
export class GatewaysService {
  constructor(
    @InjectRepository(Gateway) private readonly gateways: Repository<Gateway>,
    private readonly uow: UnitOfWork,
  ) {}

  private readonly cache = new TtlCache<Gateway | null>(REFERENCE_DATA_TTL_MS);

  /**
   * Read-only lookup for hot paths (validation, representation, events), cached for a few
   * seconds; never mutate the result. Admin and payment paths use {@link findByCode}.
   */
  lookup(code: string): Promise<Gateway | null> {
    return this.cache.get(code, () => this.findByCode(code));
  }

  /** {@link lookup} inside the caller's unit of work: through its connection, never the pool (contract §17). */
  lookupIn(manager: EntityManager, code: string): Promise<Gateway | null> {
    return this.cache.getLoaded(code, () => this.byCode(manager.getRepository(Gateway), code));
  }

  /**
   * Codes compare exactly (contract §3): a PAD SPACE collation would otherwise answer `"sandbox "`
   * with the `sandbox` gateway.
   */
  findByCode(code: string): Promise<Gateway | null> {
    return this.byCode(this.gateways, code);
  }

  private async byCode(repo: Repository<Gateway>, code: string): Promise<Gateway | null> {
    const gateway = await repo.findOne({ where: { code } });
    return gateway?.code === code ? gateway : null;
  }

  async findByCodes(codes: string[]): Promise<Gateway[]> {
    if (codes.length === 0) return [];
    return (await this.gateways.find({ where: { code: In(codes) } })).filter((g) => codes.includes(g.code));
  }

  async get(code: string): Promise<Gateway> {
    const gateway = await this.findByCode(code);
    if (!gateway) throw new NotFound();
    return gateway;
  }

  list(): Promise<Gateway[]> {
    return this.gateways.find({ order: { id: 'ASC' } });
  }

  async create(input: GatewayInput): Promise<Gateway> {
    const now = new Date();
    const fields: Partial<Gateway> = {
      settings: null,
      secrets: null,
      ...input,
      currencies: input.currencies.map((c) => c.toUpperCase()),
      createdAt: now,
      updatedAt: now,
    };
    try {
      // A fresh entity per run: a run that failed at COMMIT may have given the last one an id.
      const saved = await this.uow.retrying((m) =>
        m.withRepository(this.gateways).save(this.gateways.create(fields)),
      );
      this.cache.delete(input.code);
      return saved;
    } catch (error) {
      if (isUniqueViolation(error))
        throw new FieldErrors({ code: [`Gateway "${input.code}" already exists.`] });
      throw error;
    }
  }

  async update(code: string, changes: Partial<Omit<GatewayInput, 'code'>>): Promise<Gateway> {
    const gateway = await this.get(code);
    Object.assign(gateway, changes, { updatedAt: new Date() });
    if (changes.currencies) gateway.currencies = changes.currencies.map((c) => c.toUpperCase());
    const saved = await this.uow.retrying((m) => m.withRepository(this.gateways).save(gateway));
    this.cache.delete(code);
    return saved;
  }

  count(): Promise<number> {
    return this.gateways.count();
  }

  /** Codes of the gateways that list this currency. */
  async codesAcceptingCurrency(currencyCode: string): Promise<string[]> {
    const all = await this.list();
    return all.filter((g) => g.currencies.includes(currencyCode.toUpperCase())).map((g) => g.code);
  }

  /** Deletes a gateway no transaction uses; one in use is deactivated instead (contract §8). */
  async remove(code: string, inUse: boolean): Promise<'deleted' | 'deactivated'> {
    const gateway = await this.get(code);
    this.cache.delete(code);
    if (inUse) {
      const changes = { isActive: false, updatedAt: new Date() };
      await this.uow.retrying((m) => m.withRepository(this.gateways).update({ id: gateway.id }, changes));
      return 'deactivated';
    }
    await this.uow.retrying((m) => m.withRepository(this.gateways).delete({ id: gateway.id }));
    return 'deleted';
  }
}
