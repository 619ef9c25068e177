import { Injectable, Logger } from '@nestjs/common';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppConfig } from '../config/app-config';

/**
 * The keyed hash that tells two saves of the same card apart from two cards (contract §15), without
 * keeping the number. The key lives outside the database (a hash of a 16-digit number whose last
 * four and brand are stored could otherwise be brute-forced from a database copy):
 * `CARD_FINGERPRINT_KEY`, or — for a newcomer's single instance — a random key kept in the file
 * `CARD_FINGERPRINT_KEY_FILE` (default `data/card-fingerprint.key`), created on first use.
 * Replicas must share the key (set the variable) or the same card may be saved once per replica.
 */
@Injectable()
export class CardFingerprints {
  private readonly logger = new Logger('Cards');
  private key: Buffer | null = null;

  constructor(private readonly config: AppConfig) {}

  of(number: string): string {
    return createHmac('sha256', this.secret()).update(number).digest('hex');
  }

  /**
   * The fingerprint of a card typed on a provider's page, from the provider's own fingerprint of
   * its number (Stripe's `card.fingerprint`), keyed the same way so that no value the provider
   * gives is stored as it is. The `provider:` prefix keeps it apart from numbers' fingerprints.
   */
  ofProviderCard(gatewayCode: string, providerFingerprint: string): string {
    return this.of(`provider:${gatewayCode}:${providerFingerprint}`);
  }

  private secret(): Buffer {
    if (this.key) return this.key;
    const { key, keyFile } = this.config.cardFingerprint;
    this.key = key !== null ? Buffer.from(key, 'utf8') : this.keyFromFile(keyFile);
    return this.key;
  }

  private keyFromFile(path: string): Buffer {
    try {
      return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(path, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
      this.logger.warn(
        `CARD_FINGERPRINT_KEY is not set: created a key in ${path} (set the variable on replicas)`,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another process won
    }
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  }
}
