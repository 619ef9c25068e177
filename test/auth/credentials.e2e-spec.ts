import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys/api-keys.service';
import { hashPassword } from '../../src/auth/passwords';
import { User } from '../../src/auth/users/user.entity';
import { UsersService } from '../../src/auth/users/users.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { apiKeyAuth, basicAuth, gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/pymt-txn/';
const BOTH_CHALLENGES = 'Api-Key realm="checkout", Basic realm="checkout"';
const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' };
const INVALID_KEY = { detail: 'Invalid API key.' };
const INVALID_LOGIN = { detail: 'Invalid username or password.' };

describe('authentication and permissions on the transactions API (contract §3)', () => {
  let t: TestApp;
  let s: Seeded;
  let sessionId: string;
  let apiKey: string;
  before(async () => {
    // Many deliberate failures from one address: the throttle is tested on its own (throttle.e2e-spec).
    t = await startApp({ env: { AUTH_FAILURE_LIMIT: '1000' } });
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'other', name: 'Other' }));
    apiKey = s.apiKey.slice('Api-Key '.length);
    const created = await t
      .http()
      .post(PATH)
      .set('Authorization', s.apiKey)
      .send(transactionBody())
      .expect(201);
    sessionId = created.body.session_id;
  });
  after(() => t.close());

  const create = (auth?: string, body = transactionBody()) => {
    const req = t.http().post(PATH);
    return (auth === undefined ? req : req.set('Authorization', auth)).send(body);
  };
  const update = (auth?: string) => {
    const req = t.http().patch(`${PATH}${sessionId}/`);
    return (auth === undefined ? req : req.set('Authorization', auth)).send({ customer_first_name: 'Ann' });
  };
  const expect401 = (
    res: { status: number; body: unknown; headers: Record<string, string> },
    body: object,
    challenge: string,
  ) => {
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, body);
    assert.equal(res.headers['www-authenticate'], challenge);
  };

  describe('missing credentials', () => {
    it('create without credentials → 401 with both challenges', async () => {
      expect401(await create(), NOT_PROVIDED, BOTH_CHALLENGES);
    });
    it('update without credentials → 401 with the API-key challenge', async () => {
      expect401(await update(), NOT_PROVIDED, 'Api-Key realm="checkout"');
    });
    it('an empty or unknown-scheme Authorization header counts as none', async () => {
      expect401(await create(''), NOT_PROVIDED, BOTH_CHALLENGES);
      expect401(await create('Bearer abc.def'), NOT_PROVIDED, BOTH_CHALLENGES);
      expect401(await create('Token something'), NOT_PROVIDED, BOTH_CHALLENGES);
    });
  });

  describe('API keys', () => {
    it('a valid key creates (initiator_id null) with any gateway code, and updates', async () => {
      const res = await create(s.apiKey, transactionBody({ pg_codes: ['other'] })).expect(201);
      assert.equal(res.body.initiator_id, null);
      await update(s.apiKey).expect(200);
    });
    it('refuses a wrong secret, an unknown prefix and malformed keys with "Invalid API key."', async () => {
      const [prefix, secret] = apiKey.split('.');
      const wrongSecret = `${prefix}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      for (const key of [
        wrongSecret,
        `zzzzzzzz.${secret}`,
        prefix,
        `${prefix}.short`,
        `${prefix}${secret}`,
        '.',
        'x'.repeat(300),
      ]) {
        expect401(await create(apiKeyAuth(key)), INVALID_KEY, BOTH_CHALLENGES);
      }
      expect401(await update(apiKeyAuth(wrongSecret)), INVALID_KEY, 'Api-Key realm="checkout"');
    });
    it('refuses "Api-Key" with no key', async () => {
      expect401(await create('Api-Key'), INVALID_KEY, BOTH_CHALLENGES);
    });
    it('reads the scheme name case-insensitively and tolerates extra spaces', async () => {
      await create(`api-key ${apiKey}`).expect(201);
      await create(`API-KEY ${apiKey}`).expect(201);
      await create(`Api-Key   ${apiKey}`).expect(201);
    });
    it('refuses a revoked key', async () => {
      const issued = await t.app.get(ApiKeysService).issue('to revoke');
      await create(apiKeyAuth(issued.key)).expect(201);
      await t.app.get(ApiKeysService).revoke(issued.apiKey.id);
      expect401(await create(apiKeyAuth(issued.key)), INVALID_KEY, BOTH_CHALLENGES);
      expect401(await update(apiKeyAuth(issued.key)), INVALID_KEY, 'Api-Key realm="checkout"');
    });
    it('refuses an expired key', async () => {
      // Used while valid (so the replica holds it in its cache), then past its expiry: refused.
      const issued = await t.app.get(ApiKeysService).issue('expiring', new Date(Date.now() + 1000));
      await create(apiKeyAuth(issued.key)).expect(201);
      await new Promise((r) => setTimeout(r, 1100));
      expect401(await create(apiKeyAuth(issued.key)), INVALID_KEY, BOTH_CHALLENGES);
    });
  });

  describe('Basic users', () => {
    it('a user creates with a code it holds; initiator_id is its id', async () => {
      const res = await create(s.merchant).expect(201);
      assert.equal(res.body.initiator_id, s.merchantId);
    });
    it('a user creating with a code it does not hold → 403', async () => {
      const res = await create(s.merchant, transactionBody({ pg_codes: ['other'] })).expect(403);
      assert.deepEqual(res.body, { detail: 'You do not have permission to use gateway code "other".' });
    });
    it('a wrong password or an unknown user → "Invalid username or password."', async () => {
      expect401(await create(basicAuth('merchant', 'wrong-password')), INVALID_LOGIN, BOTH_CHALLENGES);
      expect401(await create(basicAuth('nobody', 'merchant-pass-1')), INVALID_LOGIN, BOTH_CHALLENGES);
    });
    it('malformed Basic headers → 401 "Invalid username or password."', async () => {
      for (const header of [
        'Basic',
        'Basic !!!',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from(':merchant-pass-1').toString('base64')}`,
        `Basic ${Buffer.from('merchant:').toString('base64')}`,
      ]) {
        expect401(await create(header), INVALID_LOGIN, BOTH_CHALLENGES);
      }
    });
    it('reads the scheme name case-insensitively, tolerates extra spaces, keeps colons in passwords', async () => {
      const token = Buffer.from('merchant:merchant-pass-1').toString('base64');
      await create(`basic ${token}`).expect(201);
      await create(`BASIC  ${token}`).expect(201);
      await t.app
        .get(UsersService)
        .create({ username: 'colon', password: 'pass:word:1', gatewayCodes: ['sandbox'] });
      await create(basicAuth('colon', 'pass:word:1')).expect(201);
      expect401(await create(basicAuth('colon', 'pass')), INVALID_LOGIN, BOTH_CHALLENGES);
    });
    it('an inactive user → 401', async () => {
      const users = t.app.get(UsersService);
      const user = await users.create({
        username: 'inactive',
        password: 'inactive-pass',
        gatewayCodes: ['sandbox'],
      });
      await create(basicAuth('inactive', 'inactive-pass')).expect(201);
      await users.update(user.id, { isActive: false });
      expect401(await create(basicAuth('inactive', 'inactive-pass')), INVALID_LOGIN, BOTH_CHALLENGES);
    });
    it("spends one scrypt on a client's repeated requests; a guess always spends its own, a new password refuses the old at once", async () => {
      const users = t.app.get(UsersService);
      const user = await users.create({
        username: 'repeat',
        password: 'repeat-pass-1',
        gatewayCodes: ['sandbox'],
      });
      const before = { ...users.passwords.stats };
      await create(basicAuth('repeat', 'repeat-pass-1')).expect(201);
      assert.equal(users.passwords.stats.hashed, before.hashed, 'the password set here is known to match');
      // A password set on another replica: this one checks it once, then remembers.
      await t.app
        .get(DataSource)
        .getRepository(User)
        .update(user.id, { passwordHash: await hashPassword('repeat-pass-2') });
      for (let i = 0; i < 3; i++) await create(basicAuth('repeat', 'repeat-pass-2')).expect(201);
      assert.equal(users.passwords.stats.hashed - before.hashed, 1, 'one scrypt for three requests');
      expect401(await create(basicAuth('repeat', 'repeat-pass-1')), INVALID_LOGIN, BOTH_CHALLENGES);
      for (let i = 0; i < 2; i++)
        expect401(await create(basicAuth('repeat', 'repeat-guess')), INVALID_LOGIN, BOTH_CHALLENGES);
      assert.equal(
        users.passwords.stats.hashed - before.hashed,
        4,
        'the old password and each guess checked',
      );
      await users.update(user.id, { password: 'repeat-pass-3' });
      expect401(await create(basicAuth('repeat', 'repeat-pass-2')), INVALID_LOGIN, BOTH_CHALLENGES);
      await create(basicAuth('repeat', 'repeat-pass-3')).expect(201);
      await users.update(user.id, { gatewayCodes: [] });
      const res = await create(basicAuth('repeat', 'repeat-pass-3')).expect(403);
      assert.deepEqual(res.body, { detail: 'You do not have permission to use gateway code "sandbox".' });
    });
    it('Basic auth on update → 401 (update takes an API key), even with the right password', async () => {
      const res = await update(s.merchant);
      expect401(
        res,
        { detail: 'Basic authentication is not accepted here; use an API key.' },
        'Api-Key realm="checkout"',
      );
    });
  });

  describe('retrieve is public', () => {
    it('answers without credentials, and ignores bad ones', async () => {
      for (const header of [
        undefined,
        'Api-Key nope.nope',
        basicAuth('merchant', 'wrong'),
        'Bearer x',
        'Basic !!!',
      ]) {
        const req = t.http().get(`${PATH}${sessionId}/`);
        const res = await (header ? req.set('Authorization', header) : req).expect(200);
        assert.equal(res.body.session_id, sessionId);
      }
    });
  });
});
