import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { GatewaySecretsUnreadable, GatewaySettings } from '../../src/gateways/gateway-settings';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { Transaction } from '../../src/transactions/transaction.entity';
import { TransactionsRepository } from '../../src/transactions/transactions.repository';
import { OPERATION_PATH } from '../factories/transaction-states';
import { CapturedLogs } from '../setup/captured-logs';
import { adminAuth, seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { createTestDatabase, type TestDatabase } from '../setup/test-database';
import { createTransaction } from '../transactions/helpers';

const GATEWAYS = '/b/checkout/v1/admin/gateways/';
const SECRET_KEY = 'sk_test_UNREADABLE-4410';
const WEBHOOK_SECRET = 'whsec_UNREADABLE-8127';
const newKey = (): string => randomBytes(32).toString('base64');

const unreadableDetail = (code: string, names: string) =>
  `Gateway "${code}" cannot be used now: its secrets ${names} cannot be decrypted (neither SECRETS_KEY ` +
  'nor SECRETS_KEY_PREVIOUS is the key they were saved under). Start the service with that key, or save them again.';

/**
 * contract §20.1: gateway secrets that cannot be decrypted (the service restarted with another
 * SECRETS_KEY) are said at start (an error line per gateway naming its secrets and SECRETS_KEY) and in
 * the gateway's admin representation (`secrets_unreadable`, always present); a route that needs the
 * gateway's settings answers 503 naming them, never 500.
 */
describe('gateway secrets that cannot be decrypted', () => {
  let db: TestDatabase;
  let t: TestApp;
  let s: Seeded;
  let sessionId: string;
  const logs = new CapturedLogs();

  before(async () => {
    db = await createTestDatabase();
    const first = await startApp({ db, env: { SECRETS_KEY: newKey() } });
    try {
      s = await seedBasics(first);
      const created = await first
        .http()
        .post(GATEWAYS)
        .set('Authorization', adminAuth())
        .send({
          code: 'stripe',
          name: 'Stripe',
          pg: 'stripe',
          type: 'sandbox',
          currencies: ['KWD'],
          settings: {
            secret_key: SECRET_KEY,
            webhook_secret: WEBHOOK_SECRET,
            api_base_url: 'http://127.0.0.1:9',
          },
        });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.secrets_unreadable, [], 'readable under the key they were saved with');
      const tx = await createTransaction(first, s, { amount: '5.120', pg_codes: ['stripe'] });
      sessionId = tx.session_id as string;
      const row = await first.app.get(DataSource).getRepository(Transaction).findOneByOrFail({ sessionId });
      assert.ok(
        await first.app
          .get(TransactionsRepository)
          .updateIfCurrent(
            row.id,
            row.version,
            [row.state],
            { state: 'paid', paidAmount: '5.120' },
            first.app.get(DataSource).manager,
          ),
      );
    } finally {
      await first.close();
    }
    logs.start();
    try {
      t = await startApp({ db, env: { SECRETS_KEY: newKey(), LOG_LEVEL: 'info' } });
    } finally {
      logs.stop();
    }
  });
  after(async () => {
    await t?.close();
    await db?.drop();
  });

  it('says so at start: one error line naming the gateway, its secrets and SECRETS_KEY, no secret value', () => {
    const lines = logs.lines
      .flatMap((chunk) => chunk.split('\n'))
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const reported = lines.filter((line) => line.gateway === 'stripe' && line.level === 50);
    assert.equal(reported.length, 1, JSON.stringify(lines.filter((l) => Number(l.level) >= 40)));
    assert.deepEqual(reported[0].secrets, ['secret_key', 'webhook_secret']);
    assert.equal(reported[0].context, 'Bootstrap');
    assert.match(
      String(reported[0].msg),
      /^Gateway "stripe": the secrets secret_key, webhook_secret cannot be decrypted with SECRETS_KEY/,
    );
    // The sandbox gateway has no secret: nothing to say about it.
    assert.ok(!lines.some((line) => line.gateway === 'sandbox'));
    const text = logs.lines.join('');
    assert.ok(!text.includes(SECRET_KEY) && !text.includes(WEBHOOK_SECRET), 'a secret reached the log');
  });

  it('the admin representation names them in secrets_unreadable ([] for the other gateways)', async () => {
    const one = await t.http().get(`${GATEWAYS}stripe/`).set('Authorization', adminAuth()).expect(200);
    assert.deepEqual(one.body.secrets_set, ['secret_key', 'webhook_secret']);
    assert.deepEqual(one.body.secrets_unreadable, ['secret_key', 'webhook_secret']);
    const all = await t.http().get(GATEWAYS).set('Authorization', adminAuth()).expect(200);
    const byCode = Object.fromEntries(
      (all.body as { code: string; secrets_unreadable: string[] }[]).map((g) => [
        g.code,
        g.secrets_unreadable,
      ]),
    );
    assert.deepEqual(byCode, { sandbox: [], stripe: ['secret_key', 'webhook_secret'] });
  });

  it('a route that needs its settings answers 503 naming them, never 500 (operations, notifications)', async () => {
    const refund = await t
      .http()
      .post(OPERATION_PATH)
      .set('Authorization', s.apiKey)
      .send({ operation: 'refund', session_id: sessionId, amount: '1.000' });
    assert.equal(refund.status, 503, refund.text);
    assert.deepEqual(refund.body, {
      detail: unreadableDetail('stripe', 'secret_key, webhook_secret'),
      operation: 'refund',
      result: 'failed',
    });
    const count = await t.app
      .get(DataSource)
      .query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM provider_operations');
    assert.equal(Number(count[0].n), 0, 'nothing was claimed or left pending');

    const notify = await t
      .http()
      .post('/b/checkout/v1/gateways/stripe/notify/')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', 't=1,v1=00')
      .send('{"id":"evt_1","type":"checkout.session.completed"}');
    assert.equal(notify.status, 503, notify.text);
    assert.equal(notify.headers['retry-after'], '60');
    assert.deepEqual(notify.body, { detail: unreadableDetail('stripe', 'secret_key, webhook_secret') });

    const stale = await t.app.get(GatewaysService).get('stripe');
    assert.throws(
      () => t.app.get(GatewaySettings).of(stale),
      (error: unknown) =>
        error instanceof GatewaySecretsUnreadable && error.secretNames.join() === 'secret_key,webhook_secret',
    );
  });

  it('saving them again under the current key makes them readable, one by one', async () => {
    const patch = (settings: Record<string, string>) =>
      t.http().patch(`${GATEWAYS}stripe/`).set('Authorization', adminAuth()).send({ settings });
    const one = await patch({ secret_key: 'sk_test_saved-again' });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.secrets_unreadable, ['webhook_secret']);
    const both = await patch({ webhook_secret: 'whsec_saved-again' });
    assert.deepEqual(both.body.secrets_unreadable, []);
    const values = t.app.get(GatewaySettings).of(await t.app.get(GatewaysService).get('stripe'));
    assert.equal(values.secret_key, 'sk_test_saved-again');
  });
});
