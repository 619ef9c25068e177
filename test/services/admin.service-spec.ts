import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminModule } from '../../src/admin/admin.module';
import { AdminService } from '../../src/admin/admin.service';
import { ApiKeysService } from '../../src/auth/api-keys/api-keys.service';
import { userPrincipal } from '../../src/auth/principal';
import { UsersService } from '../../src/auth/users/users.service';
import { FieldErrors, NotFound, StateConflict } from '../../src/common/errors/domain-errors';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import { createTransaction, seedServiceWorld, type ServiceWorld } from '../setup/service-world';

const fieldErrorOn =
  (field: string) =>
  (e: unknown): boolean =>
    e instanceof FieldErrors && field in e.errors;

/** AdminService: the rules that tie gateways, currencies, users and API keys together (contract §8). */
describe('AdminService', () => {
  let ctx: ServiceContext;
  let w: ServiceWorld;
  let admin: AdminService;
  const newGateway = (code: string, extra: Record<string, unknown> = {}) =>
    admin.createGateway({ code, name: code, pg: 'sandbox', type: 'sandbox', currencies: ['KWD'], ...extra });

  before(async () => {
    ctx = await createServiceContext({ imports: [AdminModule] });
    w = await seedServiceWorld(ctx);
    admin = ctx.get(AdminService);
  });
  after(() => ctx.close());

  describe('gateways', () => {
    it('create: currencies must be configured; they are upper-cased and kept once', async () => {
      await assert.rejects(newGateway('gw-eur', { currencies: ['EUR'] }), fieldErrorOn('currencies'));
      const gateway = await newGateway('gw-multi', { currencies: ['kwd', 'KWD', 'usd'] });
      assert.deepEqual(gateway.currencies, ['KWD', 'USD']);
      assert.equal(gateway.tokenizable, true, 'a sandbox gateway saves cards by default');
      assert.equal((await ctx.get(GatewaysService).get('gw-multi')).isActive, true);
    });

    it('a cash gateway is offline, purchase only and never tokenizable', async () => {
      const cash = await newGateway('gw-cash', { pg: 'cash' });
      assert.deepEqual([cash.flow, cash.tokenizable], ['offline', false]);
      await assert.rejects(
        newGateway('gw-cash-2', { pg: 'cash', operation: 'authorize' }),
        fieldErrorOn('operation'),
      );
      await assert.rejects(newGateway('gw-card', { flow: 'offline' }), fieldErrorOn('flow'));
    });

    it('update: the code cannot change; fees are stored canonical', async () => {
      await newGateway('gw-fees');
      await assert.rejects(admin.updateGateway('gw-fees', {}, 'gw-other'), fieldErrorOn('code'));
      const updated = await admin.updateGateway('gw-fees', { feeFixed: '0.500', feePercent: '2.50' });
      assert.deepEqual([updated.feeFixed, updated.feePercent], ['0.5', '2.5']);
      await assert.rejects(admin.updateGateway('gw-unknown', { name: 'x' }), NotFound);
    });

    it('remove: an unused gateway is deleted and its code leaves the users; a used one is only deactivated', async () => {
      await newGateway('gw-unused');
      const user = await admin.createUser({
        username: 'gw-user',
        password: 'gw-user-pass-1',
        gatewayCodes: ['gw-unused', 'sandbox'],
      });
      assert.equal((await admin.removeGateway('gw-unused')).result, 'deleted');
      assert.equal(await ctx.get(GatewaysService).findByCode('gw-unused'), null);
      assert.deepEqual((await ctx.get(UsersService).get(user.id)).gatewayCodes, ['sandbox']);

      await newGateway('gw-used');
      await createTransaction(ctx, w.apiKey, { pg_codes: ['gw-used'] });
      const removal = await admin.removeGateway('gw-used');
      assert.equal(removal.result, 'deactivated');
      assert.equal((await ctx.get(GatewaysService).get('gw-used')).isActive, false);
    });
  });

  describe('currencies', () => {
    it('a currency a gateway accepts, or a transaction is in, cannot be deleted (409); an unused one can', async () => {
      const currencies = ctx.get(CurrenciesService);
      await currencies.create('BHD');
      await newGateway('gw-bhd', { currencies: ['BHD'] });
      await assert.rejects(admin.removeCurrency('BHD'), StateConflict);
      await createTransaction(ctx, w.apiKey, { pg_codes: ['gw-bhd'], currency_code: 'BHD', amount: '1' });
      await admin.updateGateway('gw-bhd', { currencies: ['KWD'] });
      await assert.rejects(admin.removeCurrency('bhd'), StateConflict);
      await currencies.create('OMR');
      await admin.removeCurrency('omr');
      assert.equal(await currencies.findByCode('OMR'), null);
      await assert.rejects(admin.removeCurrency('OMR'), NotFound);
    });
  });

  describe('API keys', () => {
    it('an expiry in the past is refused; the key verifies until it is revoked; only a hash is kept', async () => {
      await assert.rejects(
        async () => admin.issueApiKey('born expired', new Date(Date.now() - 1000)),
        fieldErrorOn('expires_at'),
      );
      const { apiKey, key } = await admin.issueApiKey('svc key', new Date(Date.now() + 3_600_000));
      const keys = ctx.get(ApiKeysService);
      assert.equal((await keys.verify(key))?.id, apiKey.id);
      assert.equal(JSON.stringify(await keys.list()).includes(key.split('.').pop()!), false);
      await keys.revoke(apiKey.id);
      assert.equal(await keys.verify(key), null);
      assert.ok((await keys.list()).find((k) => k.id === apiKey.id)?.revokedAt, 'the row stays, revoked');
    });

    it('a key past its expiry no longer verifies', async () => {
      const { key } = await admin.issueApiKey('short-lived', new Date(Date.now() + 60_000));
      assert.equal(await ctx.get(ApiKeysService).verify(key, new Date(Date.now() + 120_000)), null);
    });
  });

  describe('users', () => {
    it('gateway codes must exist; the password is stored hashed and verifies', async () => {
      await assert.rejects(
        admin.createUser({ username: 'ghost-user', password: 'ghost-pass-1', gatewayCodes: ['nope'] }),
        fieldErrorOn('gateway_codes'),
      );
      const user = await admin.createUser({
        username: 'svc-user',
        password: 'svc-user-pass-1',
        gatewayCodes: ['sandbox', 'sandbox'],
      });
      assert.deepEqual(user.gatewayCodes, ['sandbox']);
      assert.notEqual(user.passwordHash, 'svc-user-pass-1');
      const users = ctx.get(UsersService);
      assert.equal((await users.verify('svc-user', 'svc-user-pass-1'))?.id, user.id);
      assert.equal(await users.verify('svc-user', 'wrong-password'), null);
      await assert.rejects(
        admin.updateUser(w.apiKey, user.id, { gatewayCodes: ['sandbox', 'nope'] }),
        fieldErrorOn('gateway_codes'),
      );
    });

    it('an admin cannot deactivate, demote or delete themself; another admin can', async () => {
      const me = await admin.createUser({ username: 'svc-admin', password: 'svc-admin-pass', isAdmin: true });
      const other = await admin.createUser({
        username: 'svc-admin-2',
        password: 'svc-admin-pass',
        isAdmin: true,
      });
      const actor = userPrincipal(me);
      await assert.rejects(admin.updateUser(actor, me.id, { isActive: false }), fieldErrorOn('is_active'));
      await assert.rejects(admin.updateUser(actor, me.id, { isAdmin: false }), fieldErrorOn('is_admin'));
      await assert.rejects(admin.removeUser(actor, me.id), StateConflict);
      assert.equal((await ctx.get(UsersService).get(me.id)).isActive, true);
      const demoted = await admin.updateUser(userPrincipal(other), me.id, { isAdmin: false });
      assert.equal(demoted.isAdmin, false);
      await admin.removeUser(userPrincipal(other), me.id);
      await assert.rejects(ctx.get(UsersService).get(me.id), NotFound);
      await assert.rejects(admin.removeUser(actor, me.id), NotFound);
    });
  });
});
