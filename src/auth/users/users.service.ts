import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FieldErrors, NotFound } from '../../common/errors/domain-errors';
import { isUniqueViolation } from '../../database/db-values';
import { UnitOfWork } from '../../database/unit-of-work';
import { DUMMY_PASSWORD_HASH, hashPassword } from '../passwords';
import { PasswordMatches } from './password-matches';
import { User } from './user.entity';

export interface UserInput {
  username: string;
  password: string;
  gatewayCodes?: string[];
  isAdmin?: boolean;
  isActive?: boolean;
}

export type UserChanges = Partial<UserInput>;

/**
 * Ends the sessions a user's credentials opened (the admin console's), inside the unit of work
 * that changes or deletes the user: registered by the sessions' owner, so this lower module
 * never reaches a higher one's table.
 */
export type SessionRevoker = (manager: EntityManager, userId: number) => Promise<unknown>;

/** Changes after which what the old credentials opened must end (contract §19). */
const revokesSessions = (changes: UserChanges): boolean =>
  changes.password !== undefined || changes.isActive === false || changes.isAdmin === false;

/**
 * Basic-auth users: created by admins, passwords kept as scrypt hashes. Each write commits on its
 * own and is run again on a deadlock, lock-wait timeout or Galera conflict (contract §17). A new
 * password, a deactivation, a demotion and a deletion end the user's sessions in the same unit.
 */
@Injectable()
export class UsersService {
  private readonly revokers: SessionRevoker[] = [];
  /** Passwords checked against their hashes, matches remembered for minutes (password-matches.ts). */
  readonly passwords = new PasswordMatches();

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly uow: UnitOfWork,
  ) {}

  /** Called at start-up by the owner of sessions opened with a user's credentials. */
  onSessionsRevoked(revoker: SessionRevoker): void {
    this.revokers.push(revoker);
  }

  /**
   * The active user with these credentials, or null. Spends one scrypt, found or not, unless the
   * same password matched the same hash minutes ago ({@link PasswordMatches}); the user is read
   * every time, so a deactivation or a new permission applies at once.
   * Names compare exactly (contract §3): the database's lookup may match `admin ` or `ADMIN` to
   * `admin` (MariaDB's PAD SPACE collations, case-insensitive ones), so the found name is
   * compared again here; a near miss is an unknown user.
   */
  async verify(username: string, password: string): Promise<User | null> {
    const found = await this.users.findOne({ where: { username } });
    const user = found?.username === username ? found : null;
    const ok = await this.passwords.check(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    return user && ok && user.isActive ? user : null;
  }

  async create(input: UserInput): Promise<User> {
    const now = new Date();
    const passwordHash = await hashPassword(input.password);
    this.passwords.remember(input.password, passwordHash);
    const fields: Partial<User> = {
      username: input.username,
      passwordHash,
      gatewayCodes: input.gatewayCodes ?? [],
      isAdmin: input.isAdmin ?? false,
      isActive: input.isActive ?? true,
      createdAt: now,
      updatedAt: now,
    };
    try {
      // A fresh entity per run: a run that failed at COMMIT may have given the last one an id.
      return await this.uow.retrying((m) => m.withRepository(this.users).save(this.users.create(fields)));
    } catch (error) {
      if (isUniqueViolation(error))
        throw new FieldErrors({ username: ['A user with that username already exists.'] });
      throw error;
    }
  }

  async update(id: number, changes: UserChanges): Promise<User> {
    const user = await this.get(id);
    if (changes.username !== undefined) user.username = changes.username;
    if (changes.password !== undefined) {
      user.passwordHash = await hashPassword(changes.password);
      this.passwords.remember(changes.password, user.passwordHash);
    }
    if (changes.gatewayCodes !== undefined) user.gatewayCodes = changes.gatewayCodes;
    if (changes.isAdmin !== undefined) user.isAdmin = changes.isAdmin;
    if (changes.isActive !== undefined) user.isActive = changes.isActive;
    user.updatedAt = new Date();
    try {
      if (!revokesSessions(changes))
        return await this.uow.retrying((m) => m.withRepository(this.users).save(user));
      return await this.uow.run(async (manager) => {
        const saved = await manager.getRepository(User).save(user);
        await this.revokeSessions(manager, id);
        return saved;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new FieldErrors({ username: ['A user with that username already exists.'] });
      throw error;
    }
  }

  /**
   * Makes sure the bootstrap admin exists with this password (ADMIN_USERNAME/ADMIN_PASSWORD).
   * Replicas starting together race to create it: the one that loses the insert (unique key —
   * on Galera first a certification conflict, run again by {@link create}) finds the winner's row
   * and checks it like any existing one.
   */
  async ensureAdmin(username: string, password: string): Promise<User> {
    let existing = await this.users.findOne({ where: { username } });
    if (!existing) {
      try {
        return await this.create({ username, password, isAdmin: true });
      } catch (error) {
        if (!(error instanceof FieldErrors)) throw error;
        existing = await this.users.findOneOrFail({ where: { username } });
      }
    }
    const samePassword = await this.passwords.check(password, existing.passwordHash);
    if (samePassword && existing.isAdmin && existing.isActive) return existing;
    return this.update(existing.id, { password, isAdmin: true, isActive: true });
  }

  async get(id: number): Promise<User> {
    const user = await this.users.findOne({ where: { id } });
    if (!user) throw new NotFound();
    return user;
  }

  list(): Promise<User[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  async remove(id: number): Promise<void> {
    const deleted = await this.uow.run(async (manager) => {
      const result = await manager.getRepository(User).delete({ id });
      if (result.affected) await this.revokeSessions(manager, id);
      return Boolean(result.affected);
    });
    if (!deleted) throw new NotFound();
  }

  private async revokeSessions(manager: EntityManager, userId: number): Promise<void> {
    for (const revoke of this.revokers) await revoke(manager, userId);
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /** Takes a (deleted) gateway code away from every user holding it. */
  async revokeGatewayCode(code: string): Promise<void> {
    for (const user of await this.list()) {
      if (!user.gatewayCodes.includes(code)) continue;
      const changes = { gatewayCodes: user.gatewayCodes.filter((c) => c !== code), updatedAt: new Date() };
      await this.uow.retrying((m) => m.withRepository(this.users).update({ id: user.id }, changes));
    }
  }
}
