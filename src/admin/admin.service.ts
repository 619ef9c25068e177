import { Injectable } from '@nestjs/common';
import { ApiKeysService, type IssuedApiKey } from '../auth/api-keys/api-keys.service';
import type { Principal } from '../auth/principal';
import type { User } from '../auth/users/user.entity';
import { UserChanges, UserInput, UsersService } from '../auth/users/users.service';
import {
  addFieldError,
  FieldErrors,
  FieldErrorTree,
  NotFound,
  StateConflict,
} from '../common/errors/domain-errors';
import { canonicalDecimal } from '../common/money/money';
import { CurrenciesService } from '../currencies/currencies.service';
import { CASH_PG, type Gateway } from '../gateways/gateway.entity';
import { GatewayDrivers, type GatewayDriver } from '../gateways/gateway-drivers';
import { GatewaySettings } from '../gateways/gateway-settings';
import { GATEWAY_DEFAULTS, GatewayInput, GatewaysService } from '../gateways/gateways.service';
import { routeMemberProblems, type RouterFields } from '../routing/route-members';
import { isRouter, routerSettings } from '../routing/router-settings';
import { TransactionsService } from '../transactions/transactions.service';

/** A new gateway: what must be given, the rest takes {@link GATEWAY_DEFAULTS}. */
export type NewGateway = Pick<GatewayInput, 'code' | 'name' | 'pg' | 'type' | 'currencies'> &
  Partial<GatewayInput>;

export interface GatewayRemoval {
  code: string;
  result: 'deleted' | 'deactivated';
  detail: string;
}

/**
 * Admin rules that tie resources together: a gateway's currencies must be configured, a user's
 * gateway codes must exist, what still uses a currency or a gateway cannot vanish, an API key
 * cannot be born expired, and an admin cannot lock themself out. The single-resource rules stay
 * in each resource's own service.
 */
@Injectable()
export class AdminService {
  constructor(
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly transactions: TransactionsService,
    private readonly users: UsersService,
    private readonly apiKeys: ApiKeysService,
    private readonly drivers: GatewayDrivers,
    private readonly settings: GatewaySettings,
  ) {}

  /** A new gateway; `settings` is the request's (undefined when left out), checked against its driver. */
  async createGateway(input: NewGateway, settings?: unknown): Promise<Gateway> {
    const driver = this.requireDriver(input.pg);
    await this.requireConfiguredCurrencies(input.currencies);
    const cash = input.pg === CASH_PG;
    const full: GatewayInput = {
      ...GATEWAY_DEFAULTS,
      tokenizable: input.type === 'sandbox' && driver.tokenizable,
      ...(cash ? { flow: 'offline' as const } : {}),
      ...input,
    };
    checkGatewayKind(full);
    checkDriverAllows(driver, full);
    const stored = { settings: null, secrets: null };
    const created: GatewayInput = {
      ...full,
      ...this.settings.change(driver, { code: full.code, pg: full.pg, type: full.type, stored }, settings),
      currencies: unique(full.currencies.map((c) => c.toUpperCase())),
      feeFixed: canonicalDecimal(full.feeFixed),
      feePercent: canonicalDecimal(full.feePercent),
    };
    await this.requireRoutableMembers(created);
    return this.gateways.create(created);
  }

  /**
   * Changes a gateway. `settings` (the request's; undefined when left out) merges into the stored
   * ones; a new pg starts from no settings. A gateway whose stored pg names no driver (kept from
   * before drivers existed) can still change its other fields.
   */
  async updateGateway(
    code: string,
    changes: Partial<Omit<GatewayInput, 'code'>>,
    sentCode?: unknown,
    settings?: unknown,
  ): Promise<Gateway> {
    const gateway = await this.gateways.get(code);
    if (sentCode !== undefined && sentCode !== gateway.code) {
      throw new FieldErrors({ code: ['The gateway code cannot be changed.'] });
    }
    const pgChanged = changes.pg !== undefined && changes.pg !== gateway.pg;
    const typeChanged = changes.type !== undefined && changes.type !== gateway.type;
    const pg = changes.pg ?? gateway.pg;
    if (pgChanged || settings !== undefined || this.drivers.find(pg)) {
      const driver = this.requireDriver(pg);
      checkDriverAllows(driver, { ...gateway, ...changes });
      if (pgChanged || typeChanged || settings !== undefined) {
        const stored = pgChanged ? { settings: null, secrets: null } : gateway;
        const type = changes.type ?? gateway.type;
        changes = { ...changes, ...this.settings.change(driver, { code, pg, type, stored }, settings) };
      }
    }
    if (changes.currencies) {
      await this.requireConfiguredCurrencies(changes.currencies);
      changes = { ...changes, currencies: unique(changes.currencies.map((c) => c.toUpperCase())) };
    }
    checkGatewayKind({ ...gateway, ...changes });
    await this.requireRoutableMembers({ ...gateway, ...changes });
    if (changes.feeFixed !== undefined)
      changes = { ...changes, feeFixed: canonicalDecimal(changes.feeFixed) };
    if (changes.feePercent !== undefined)
      changes = { ...changes, feePercent: canonicalDecimal(changes.feePercent) };
    return this.gateways.update(code, changes);
  }

  /** A routing gateway's routes must name gateways that can honour it (contract §21): 400 under `settings.routes`. */
  private async requireRoutableMembers(gateway: RouterFields & { pg: string }): Promise<void> {
    if (!isRouter(gateway)) return;
    const codes = routerSettings(gateway.settings ?? null).routes.map((route) => route.gateway);
    const members = await this.gateways.findByCodes(codes);
    const problems = routeMemberProblems(gateway, members, (pg) => this.drivers.find(pg)?.flow ?? null);
    if (problems.length > 0) throw new FieldErrors({ settings: { routes: problems } });
  }

  /**
   * Deletes a gateway no transaction used; one that transactions used is deactivated instead, so
   * their representation keeps its payment method. It is deactivated first, so that no new
   * transaction can pick it while we look.
   */
  async removeGateway(code: string): Promise<GatewayRemoval> {
    const gateway = await this.gateways.get(code);
    if (gateway.isActive) await this.gateways.update(code, { isActive: false });
    const inUse = await this.transactions.usesGateway(code);
    const result = await this.gateways.remove(code, inUse);
    // A code re-created later must not silently hand the old users their access back.
    if (result === 'deleted') await this.users.revokeGatewayCode(code);
    const detail =
      result === 'deleted'
        ? `Gateway "${code}" was deleted.`
        : `Gateway "${code}" is used by transactions: it was deactivated instead of deleted.`;
    return { code, result, detail };
  }

  /** A currency that a gateway lists or a transaction is in cannot be deleted (409). */
  async removeCurrency(code: string): Promise<void> {
    const upper = code.toUpperCase();
    if (!(await this.currencies.findByCode(upper))) throw new NotFound();
    const gatewayCodes = await this.gateways.codesAcceptingCurrency(upper);
    if (gatewayCodes.length) {
      throw new StateConflict(
        `Currency "${upper}" is still accepted by gateway(s) ${gatewayCodes.map((c) => `"${c}"`).join(', ')}; remove it from them first.`,
      );
    }
    if (await this.transactions.usesCurrency(upper)) {
      throw new StateConflict(`Currency "${upper}" is used by existing transactions and cannot be deleted.`);
    }
    await this.currencies.remove(upper);
  }

  /** A new API key; an expiry must lie in the future (a key born expired is a mistake). */
  issueApiKey(name: string, expiresAt: Date | null): Promise<IssuedApiKey> {
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new FieldErrors({ expires_at: ['Ensure this date-time is in the future.'] });
    }
    return this.apiKeys.issue(name, expiresAt);
  }

  async createUser(input: UserInput): Promise<User> {
    await this.requireExistingGateways(input.gatewayCodes ?? []);
    return this.users.create({ ...input, gatewayCodes: unique(input.gatewayCodes ?? []) });
  }

  async updateUser(actor: Principal, id: number, changes: UserChanges): Promise<User> {
    await this.users.get(id);
    const errors: FieldErrorTree = {};
    if (isSelf(actor, id)) {
      if (changes.isActive === false)
        addFieldError(errors, 'is_active', 'You cannot deactivate your own account.');
      if (changes.isAdmin === false)
        addFieldError(errors, 'is_admin', 'You cannot remove your own admin rights.');
    }
    if (changes.gatewayCodes) {
      const unknown = await this.unknownGateways(changes.gatewayCodes);
      for (const code of unknown)
        addFieldError(errors, 'gateway_codes', `"${code}" is not a valid gateway code.`);
      changes = { ...changes, gatewayCodes: unique(changes.gatewayCodes) };
    }
    if (Object.keys(errors).length) throw new FieldErrors(errors);
    return this.users.update(id, changes);
  }

  async removeUser(actor: Principal, id: number): Promise<void> {
    await this.users.get(id);
    if (isSelf(actor, id)) throw new StateConflict('You cannot delete your own account.');
    await this.users.remove(id);
  }

  /** The driver a pg names; any other pg → 400 under `pg` (contract §20). */
  private requireDriver(pg: string): GatewayDriver {
    const driver = this.drivers.find(pg);
    if (driver) return driver;
    const names = this.drivers.names().map((n) => `"${n}"`);
    throw new FieldErrors({ pg: [`"${pg}" is not a gateway driver; use one of ${names.join(', ')}.`] });
  }

  private async requireConfiguredCurrencies(codes: string[]): Promise<void> {
    const configured = new Set((await this.currencies.list()).map((c) => c.code));
    const unknown = unique(codes.map((c) => c.toUpperCase())).filter((c) => !configured.has(c));
    if (unknown.length) {
      throw new FieldErrors({ currencies: unknown.map((c) => `"${c}" is not a configured currency.`) });
    }
  }

  private async requireExistingGateways(codes: string[]): Promise<void> {
    const unknown = await this.unknownGateways(codes);
    if (unknown.length) {
      throw new FieldErrors({ gateway_codes: unknown.map((c) => `"${c}" is not a valid gateway code.`) });
    }
  }

  private async unknownGateways(codes: string[]): Promise<string[]> {
    const wanted = unique(codes);
    const found = new Set((await this.gateways.findByCodes(wanted)).map((g) => g.code));
    return wanted.filter((c) => !found.has(c));
  }
}

const unique = (values: string[]): string[] => [...new Set(values)];
const isSelf = (actor: Principal, id: number): boolean => actor.kind === 'user' && actor.userId === id;

/**
 * What a gateway's pg allows (contract §16): a cash gateway is flow `offline` — and only a cash one
 * is —, takes the money in one step (purchase) and has no card to save.
 */
function checkGatewayKind(gateway: Pick<GatewayInput, 'pg' | 'flow' | 'operation' | 'tokenizable'>): void {
  const errors: Record<string, string[]> = {};
  const cash = gateway.pg === CASH_PG;
  if (cash && gateway.flow !== 'offline') errors.flow = ['A cash gateway (pg "cash") has flow "offline".'];
  if (!cash && gateway.flow === 'offline')
    errors.flow = ['Only a cash gateway (pg "cash") has flow "offline".'];
  if (cash && gateway.operation !== 'purchase') {
    errors.operation = ['A cash gateway takes the money at once: operation "purchase".'];
  }
  if (cash && gateway.tokenizable) errors.tokenizable = ['A cash gateway cannot save cards.'];
  if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
}

/** What the driver can do (contract §20 "Driver catalogue"): save cards, and in which currencies. */
function checkDriverAllows(
  driver: GatewayDriver,
  gateway: Pick<GatewayInput, 'currencies' | 'tokenizable'>,
): void {
  const errors: Record<string, string[]> = {};
  if (gateway.tokenizable && !driver.tokenizable)
    errors.tokenizable = [`The ${driver.pg} driver cannot save cards.`];
  const allowed = driver.currencies;
  if (allowed) {
    const refused = gateway.currencies.map((c) => c.toUpperCase()).filter((c) => !allowed.includes(c));
    if (refused.length > 0) {
      errors.currencies = refused.map(
        (c) => `The ${driver.pg} driver takes only ${allowed.join(', ')}, not "${c}".`,
      );
    }
  }
  if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
}
