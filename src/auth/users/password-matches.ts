import { createHmac, randomBytes } from 'node:crypto';
import { verifyPassword } from '../passwords';

/** How long a verified password is remembered, at most. */
export const REMEMBERED_MS = 5 * 60_000;
/** How many verified passwords are remembered at once, at most (the oldest goes first). */
export const REMEMBERED_MAX = 10_000;

/**
 * Whether a password matches a stored scrypt hash, remembering the matches for a few minutes, so a
 * Basic-auth client's every request does not spend an scrypt (~60 ms of a worker thread on a
 * 2-core machine; a busy integration would queue the whole thread pool behind them). What
 * Elasticsearch's realm cache and RabbitMQ's auth cache do.
 *
 * Only matches are remembered, so a wrong password (a guess) always spends its scrypt, as an
 * unknown username does. The memo is of a pure function: it is keyed by the stored hash and the
 * password, so a new password (a new hash) is checked afresh, and the caller still reads the user
 * on every request, so a deactivation or a permission change applies at once. Kept in memory only,
 * as an HMAC under a key made at start and never stored: neither a password nor anything that
 * could check a guess without that key.
 */
export class PasswordMatches {
  private readonly key = randomBytes(32);
  /** The HMAC of each remembered (hash, password) pair → until when (ms). */
  private readonly remembered = new Map<string, number>();
  /** Checks answered from memory, and by scrypt (read by tests). */
  readonly stats = { remembered: 0, hashed: 0 };

  constructor(
    private readonly verify: (password: string, stored: string) => Promise<boolean> = verifyPassword,
    private readonly now: () => number = Date.now,
  ) {}

  async check(password: string, stored: string): Promise<boolean> {
    const id = this.idOf(password, stored);
    const until = this.remembered.get(id);
    if (until !== undefined && until > this.now()) {
      this.stats.remembered++;
      return true;
    }
    this.remembered.delete(id);
    this.stats.hashed++;
    const matches = await this.verify(password, stored);
    if (matches) this.keep(id);
    return matches;
  }

  /** `stored` was just made from `password` (a user created, a password set): a match already. */
  remember(password: string, stored: string): void {
    this.keep(this.idOf(password, stored));
  }

  private idOf(password: string, stored: string): string {
    return createHmac('sha256', this.key).update(stored).update('\0').update(password).digest('base64');
  }

  private keep(id: string): void {
    if (this.remembered.size >= REMEMBERED_MAX) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
    this.remembered.set(id, this.now() + REMEMBERED_MS);
  }
}
