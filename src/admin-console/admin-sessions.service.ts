import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LessThan, Repository } from 'typeorm';
import { AuthThrottleService, failureKey } from '../auth/auth-throttle.service';
import type { User } from '../auth/users/user.entity';
import { UsersService } from '../auth/users/users.service';
import { AppConfig } from '../config/app-config';
import { UnitOfWork } from '../database/unit-of-work';
import { AdminSession } from './admin-session.entity';

/** last_seen_at is written at most this often (a page view is not worth a write each time). */
const TOUCH_EVERY_MS = 60_000;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export type SignInOutcome =
  | { ok: true; token: string }
  | { ok: false; reason: 'invalid' | 'not-admin' }
  | { ok: false; reason: 'throttled'; retryAfter: number };

export interface ConsoleSession {
  session: AdminSession;
  user: User;
}

/**
 * Admin console sessions (contract §19): sign-in with the §3 credentials and throttling (the same
 * failure counters as Basic auth: per source address and username, checked after the password),
 * only active `is_admin` users; a random token in the cookie, its hash in the database; idle
 * sessions end after ADMIN_SESSION_IDLE_MINUTES. A user's sessions end when their password
 * changes, when they are deactivated, demoted or deleted (in the same unit as that change,
 * through {@link UsersService.onSessionsRevoked}: the admin API and the console alike), and a
 * sign-in replaces the session the browser came with. Writes are run again on a deadlock,
 * lock-wait timeout or Galera conflict (contract §17).
 */
@Injectable()
export class AdminSessionsService implements OnModuleInit {
  constructor(
    @InjectRepository(AdminSession) private readonly sessions: Repository<AdminSession>,
    private readonly users: UsersService,
    private readonly throttle: AuthThrottleService,
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.users.onSessionsRevoked((manager, userId) => manager.getRepository(AdminSession).delete({ userId }));
  }

  private get idleMs(): number {
    return this.config.adminSessionIdleMinutes * 60_000;
  }

  /**
   * Signs in from `source` (the client's address); `replacing` is the session cookie the browser
   * came with, ended when the sign-in succeeds (no fixation, no orphaned session). The password
   * is checked first: a lock (failures of this source and username) never refuses a right one.
   */
  async signIn(
    username: string,
    password: string,
    source: string,
    replacing?: string,
  ): Promise<SignInOutcome> {
    // The key Basic auth uses: failures count against the same limit, whichever door they took.
    const key = failureKey(source, `basic:${username.slice(0, 150)}`);
    const user = await this.users.verify(username, password);
    if (!user) {
      const wait = this.throttle.recordFailure(key);
      return wait > 0
        ? { ok: false, reason: 'throttled', retryAfter: wait }
        : { ok: false, reason: 'invalid' };
    }
    this.throttle.recordSuccess(key);
    if (!user.isAdmin) return { ok: false, reason: 'not-admin' };
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const session = {
      tokenHash: sha256(token),
      userId: user.id,
      csrfToken: randomBytes(32).toString('hex'),
      createdAt: now,
      lastSeenAt: now,
    };
    await this.uow.retrying((m) => m.withRepository(this.sessions).insert(session));
    await this.signOut(replacing);
    const idleSince = new Date(now.getTime() - this.idleMs);
    await this.uow.retrying((m) =>
      m.withRepository(this.sessions).delete({ lastSeenAt: LessThan(idleSince) }),
    );
    return { ok: true, token };
  }

  /** The live session of a cookie's token (moved on by this use), or null. */
  async resolve(token: string | undefined, now = new Date()): Promise<ConsoleSession | null> {
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const session = await this.sessions.findOne({ where: { tokenHash: sha256(token) } });
    if (!session) return null;
    if (now.getTime() - session.lastSeenAt.getTime() > this.idleMs) {
      await this.end(session);
      return null;
    }
    const user = await this.users.get(session.userId).catch(() => null);
    if (!user || !user.isActive || !user.isAdmin) {
      await this.end(session);
      return null;
    }
    if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      session.lastSeenAt = now;
      await this.uow.retrying((m) =>
        m.withRepository(this.sessions).update({ id: session.id }, { lastSeenAt: now }),
      );
    }
    return { session, user };
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token)
      await this.uow.retrying((m) => m.withRepository(this.sessions).delete({ tokenHash: sha256(token) }));
  }

  private async end(session: AdminSession): Promise<void> {
    await this.uow.retrying((m) => m.withRepository(this.sessions).delete({ id: session.id }));
  }

  /** Whether a form's token is the session's (constant time). */
  csrfMatches(session: AdminSession, sent: unknown): boolean {
    return csrfTokenMatches(session, sent);
  }
}

/** Whether a form's token is the session's (constant time). */
export function csrfTokenMatches(session: AdminSession, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent.length !== session.csrfToken.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrfToken));
}
