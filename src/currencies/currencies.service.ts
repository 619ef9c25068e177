import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import * as iso4217 from 'currency-codes';
import { EntityManager, Repository } from 'typeorm';
import { FieldErrors, NotFound } from '../common/errors/domain-errors';
import { REFERENCE_DATA_TTL_MS, TtlCache } from '../common/cache/ttl-cache';
import { isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { Currency } from './currency.entity';

/**
 * The configured currency list; `digits` default from ISO 4217 (the `currency-codes` package).
 * Writes are run again on a deadlock, lock-wait timeout or Galera conflict (contract §17).
 */
@Injectable()
export class CurrenciesService {
  constructor(
    @InjectRepository(Currency) private readonly currencies: Repository<Currency>,
    private readonly uow: UnitOfWork,
  ) {}

  /** ISO 4217 minor-unit digits of a code, or null when ISO does not know it. */
  static isoDigits(code: string): number | null {
    const entry = iso4217.code(code.toUpperCase());
    return entry ? entry.digits : null;
  }

  private readonly cache = new TtlCache<Currency | null>(REFERENCE_DATA_TTL_MS);

  /**
   * Read-only lookup for hot paths (validation, representation, events), cached for a few
   * seconds; never mutate the result. Admin paths use {@link findByCode}.
   */
  lookup(code: string): Promise<Currency | null> {
    const upper = code.toUpperCase();
    return this.cache.get(upper, () => this.findByCode(upper));
  }

  /** {@link lookup} inside the caller's unit of work: through its connection, never the pool (contract §17). */
  lookupIn(manager: EntityManager, code: string): Promise<Currency | null> {
    const upper = code.toUpperCase();
    return this.cache.getLoaded(upper, () =>
      manager.getRepository(Currency).findOne({ where: { code: upper } }),
    );
  }

  findByCode(code: string): Promise<Currency | null> {
    return this.currencies.findOne({ where: { code: code.toUpperCase() } });
  }

  list(): Promise<Currency[]> {
    return this.currencies.find({ order: { code: 'ASC' } });
  }

  async create(code: string, digits?: number): Promise<Currency> {
    const upper = code.toUpperCase();
    const resolvedDigits = digits ?? CurrenciesService.isoDigits(upper);
    if (resolvedDigits === null) {
      throw new FieldErrors({
        code: [`"${upper}" is not an ISO 4217 currency code; give "digits" explicitly.`],
      });
    }
    const currency = this.currencies.create({ code: upper, digits: resolvedDigits, createdAt: new Date() });
    try {
      await this.uow.retrying((m) => m.withRepository(this.currencies).insert(currency));
      this.cache.delete(upper);
    } catch (error) {
      if (isUniqueViolation(error)) throw new FieldErrors({ code: [`Currency "${upper}" already exists.`] });
      throw error;
    }
    return currency;
  }

  async remove(code: string): Promise<void> {
    const result = await this.uow.retrying((m) =>
      m.withRepository(this.currencies).delete({ code: code.toUpperCase() }),
    );
    this.cache.delete(code.toUpperCase());
    if (!result.affected) throw new NotFound();
  }
}
