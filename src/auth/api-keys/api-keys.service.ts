import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Repository } from 'typeorm';
import { NotFound } from '../../common/errors/domain-errors';
import { isUniqueViolation } from '../../database/db-values';
import { TtlCache } from '../../common/cache/ttl-cache';
import { UnitOfWork } from '../../database/unit-of-work';
import { AppConfig } from '../../config/app-config';
import { ApiKey } from './api-key.entity';

const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomPrefix(): string {
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => PREFIX_ALPHABET[b % PREFIX_ALPHABET.length]).join('');
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export interface IssuedApiKey {
  apiKey: ApiKey;
  /** `<prefix>.<secret>`: shown once, never stored. */
  key: string;
}

/**
 * Issues, verifies and revokes API keys. Only a SHA-256 of the secret is kept. A key's row is
 * kept in memory for `API_KEY_CACHE_MS` after it was read (by prefix): the secret is still
 * compared (constant time) and the expiry checked on every request, but the database is not asked
 * again, so a revocation made on another replica takes up to that long to apply here (one made
 * on this replica applies at once). Writes are run again on a deadlock, lock-wait timeout or Galera
 * conflict (contract §17).
 */
@Injectable()
export class ApiKeysService {
  private readonly cache: TtlCache<ApiKey | null>;

  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    private readonly uow: UnitOfWork,
    config: AppConfig,
  ) {
    this.cache = new TtlCache(config.apiKeyCacheMs);
  }

  async issue(name: string, expiresAt: Date | null = null): Promise<IssuedApiKey> {
    const secret = randomBytes(32).toString('base64url'); // 43 characters, 256 bits
    for (let attempt = 0; ; attempt++) {
      const prefix = randomPrefix();
      const apiKey = this.keys.create({
        name,
        prefix,
        secretHash: sha256(secret).toString('hex'),
        createdAt: new Date(),
        expiresAt,
        revokedAt: null,
      });
      try {
        await this.uow.retrying((m) => m.withRepository(this.keys).insert(apiKey));
        return { apiKey, key: `${prefix}.${secret}` };
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 3) throw error; // retry only a prefix collision
      }
    }
  }

  /** The key for a presented `<prefix>.<secret>`, or null when unknown, wrong, revoked or expired. */
  async verify(presented: string, now = new Date()): Promise<ApiKey | null> {
    const dot = presented.indexOf('.');
    if (dot !== 8) return null;
    const prefix = presented.slice(0, dot);
    const secret = presented.slice(dot + 1);
    if (secret.length < 32) return null;
    const apiKey = await this.byPrefix(prefix);
    const expected = Buffer.from(apiKey?.secretHash ?? '0'.repeat(64), 'hex');
    const matches = timingSafeEqual(sha256(secret), expected);
    if (!apiKey || !matches) return null;
    if (apiKey.revokedAt) return null;
    if (apiKey.expiresAt && apiKey.expiresAt.getTime() <= now.getTime()) return null;
    return apiKey;
  }

  /**
   * Only found keys are kept: unknown prefixes (guesses) never fill the cache. Prefixes compare
   * exactly (contract §3): a PAD SPACE or case-insensitive collation may find `ABCDEFGH` for
   * `abcdefgh`, so the found prefix is compared again; a near miss is an unknown prefix.
   */
  private async byPrefix(prefix: string): Promise<ApiKey | null> {
    const found = await this.cache.get(prefix, () => this.keys.findOne({ where: { prefix } }));
    const apiKey = found?.prefix === prefix ? found : null;
    if (!apiKey) this.cache.delete(prefix);
    return apiKey;
  }

  list(): Promise<ApiKey[]> {
    return this.keys.find({ order: { id: 'ASC' } });
  }

  async revoke(id: number): Promise<void> {
    const apiKey = await this.keys.findOne({ where: { id } });
    if (!apiKey) throw new NotFound();
    const revokedAt = new Date();
    if (!apiKey.revokedAt)
      await this.uow.retrying((m) => m.withRepository(this.keys).update({ id }, { revokedAt }));
    this.cache.delete(apiKey.prefix);
  }

  count(): Promise<number> {
    return this.keys.count();
  }
}
