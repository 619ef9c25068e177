import { Injectable, Logger } from '@nestjs/common';
import { IdempotencyKeysRepository, type KeyRef, type StoredResponse } from './idempotency-keys.repository';
import { randomHex } from '../common/random/random-pool';

/** How long a key and its response are kept (contract §11); older rows count as absent. */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim still in flight after this long belongs to a request that died: the next repeat takes over. */
export const CLAIM_LEASE_MS = 60_000;
const SWEEP_BATCH = 500;
/** Rounds of "the row changed between our read and our write" before answering 409. */
const CLAIM_ROUNDS = 5;

/** The request holds the key: run it, then {@link IdempotencyService.complete} or release. */
export interface HeldClaim {
  kind: 'claimed';
  ref: KeyRef;
  token: string;
}

export type Claim =
  | HeldClaim
  /** The first request with this key is still running. */
  | { kind: 'in_flight' }
  /** The key was used with another request (fingerprint). */
  | { kind: 'mismatch' }
  /** The first request's response, to send again. */
  | { kind: 'replay'; response: StoredResponse };

/**
 * `Idempotency-Key` (contract §11), Stripe's way: the first request claims (credential, key, route) by
 * INSERT, runs, and stores its response; a repeat with the same fingerprint gets that response
 * back, one with another fingerprint a 422, one while the first still runs a 409. Keys live 24 h.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(private readonly keys: IdempotencyKeysRepository) {}

  async claim(ref: KeyRef, fingerprint: string): Promise<Claim> {
    for (let round = 1; round <= CLAIM_ROUNDS; round++) {
      const now = new Date();
      const values = {
        fingerprint,
        claimToken: randomHex(16),
        lockedUntil: new Date(now.getTime() + CLAIM_LEASE_MS),
        createdAt: now,
      };
      const held: HeldClaim = { kind: 'claimed', ref, token: values.claimToken };
      if (await this.keys.insertClaim(ref, values)) return held;
      const row = await this.keys.find(ref);
      if (!row) continue; // released or swept between our insert and our read: try again
      const cutoff = new Date(now.getTime() - KEY_TTL_MS);
      if (row.createdAt < cutoff) {
        if (await this.keys.reclaimExpired(row.id, cutoff, values)) return held;
        continue;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status === 'done') {
        return {
          kind: 'replay',
          response: {
            status: row.responseStatus!,
            headers: row.responseHeaders ?? {},
            body: row.responseBody!,
          },
        };
      }
      if (row.lockedUntil && row.lockedUntil < now) {
        const lease = { claimToken: values.claimToken, lockedUntil: values.lockedUntil };
        if (await this.keys.takeOver(row.id, row.claimToken, now, lease)) {
          this.logger.warn(
            { scope: ref.scope, route: ref.route },
            'Took over an idempotency key whose request died',
          );
          return held;
        }
        continue;
      }
      return { kind: 'in_flight' };
    }
    return { kind: 'in_flight' };
  }

  /** Stores the response of a claimed request for replay. */
  async complete(claim: HeldClaim, response: StoredResponse): Promise<void> {
    if (!(await this.keys.complete(claim.ref, claim.token, response))) {
      this.logger.warn(
        { scope: claim.ref.scope, route: claim.ref.route },
        'Idempotency claim lost before its response was stored',
      );
    }
  }

  /** Frees the key of a claimed request whose result is not kept (refused or failed). */
  release(claim: HeldClaim): Promise<void> {
    return this.keys.release(claim.ref, claim.token);
  }

  /** Deletes keys older than 24 h, in batches; returns how many. Safe on several replicas at once. */
  async sweepExpired(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - KEY_TTL_MS);
    let total = 0;
    for (;;) {
      const deleted = await this.keys.deleteCreatedBefore(cutoff, SWEEP_BATCH);
      total += deleted;
      if (deleted < SWEEP_BATCH) return total;
    }
  }
}
