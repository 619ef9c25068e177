import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection, type Connection } from 'mysql2/promise';
import { AdminSessionsService } from '../../src/admin-console/admin-sessions.service';
import { hashPassword, verifyPassword } from '../../src/auth/passwords';
import { UsersService } from '../../src/auth/users/users.service';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { adminAuth, gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { ADMIN, startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { createTransaction, FAST_DELIVERY_ENV, settled } from '../events/event-helpers';
import { createTransaction as createTx } from '../transactions/helpers';
import { testDbKind } from '../setup/test-database';

const ADMIN_API = '/b/checkout/v1/admin';
/**
 * The longest a lock is held: until the write has been run again after its first lock-wait timeout
 * (1 s here), at most this long. Holding until the retry is seen, not for a fixed time, keeps a
 * loaded machine (a slow request that reaches the write late) from missing the timeout.
 */
const MAX_HOLD_MS = 10_000;

/**
 * contract §17 for writes that commit on their own, outside a unit of work (every admin write, the
 * start-up admin, console sessions, deleting a saved card): each is run again after a lock-wait
 * timeout, deadlock or Galera conflict instead of answering 503 at once. On MySQL a
 * second connection holds `LOCK TABLES … READ` (reads pass, writes wait) longer than the lock-wait
 * timeout: the first run fails with 1205, a later one succeeds once the lock is gone.
 */
if (testDbKind() === 'mysql') {
  describe('writes outside a unit of work, on a locked table (contract §17)', () => {
    let t: TestApp;
    let uow: UnitOfWork;
    let holder: Connection;
    let userId: number;
    let apiKeyId: number;
    let hook: HttpReceiver;
    let eventPath: string;
    let cardPath: string;
    let apiKey: string;
    before(async () => {
      hook = await HttpReceiver.start();
      t = await startApp({ env: { ...FAST_DELIVERY_ENV, DB_ACQUIRE_TIMEOUT_MS: '1000' } });
      uow = t.app.get(UnitOfWork);
      const seeded = await seedBasics(t);
      userId = seeded.merchantId;
      apiKey = seeded.apiKey;
      const sessionId = await createTransaction(t, seeded, { webhook_url: hook.url });
      const [event] = await settled(t, sessionId);
      eventPath = `pymt-txn/${sessionId}/events/${event.event_id}/redeliver/`;
      cardPath = await savedCardPath(seeded);
      await t.app.get(GatewaysService).create(gatewayInput({ code: 'spare', currencies: ['KWD'] }));
      const key = await t.http().post(`${ADMIN_API}/api-keys/`).set('Authorization', adminAuth()).send({
        name: 'to revoke',
      });
      apiKeyId = key.body.id;
      holder = await createConnection({ uri: t.db.env.DATABASE_URL });
    });
    after(async () => {
      await holder.end();
      await t.close();
      await hook.stop();
    });

    /** A card saved by a paid transaction: its DELETE path (contract §15). */
    async function savedCardPath(seeded: Seeded): Promise<string> {
      const tx = await createTx(t, seeded, { customer_id: 'cust-locked' });
      await t
        .http()
        .post(`/b/checkout/v1/test-helpers/pymt-txn/${tx.session_id}/pay/`)
        .set('Authorization', seeded.apiKey)
        .send({ card: '4111 1111 1111 1111', save_card: true, cvc: '123', name_on_card: 'Jane Doe' })
        .expect(200);
      const [card] = (
        await t
          .http()
          .post('/b/pbl/v2/card/')
          .set('Authorization', seeded.apiKey)
          .send({ customer_id: 'cust-locked', type: 'sandbox' })
          .expect(200)
      ).body as Array<{ token: string }>;
      return `/b/pbl/v2/card/${card.token}/?customer_id=cust-locked&type=sandbox`;
    }

    /** Resolves once the unit of work has run a write again (or after MAX_HOLD_MS). */
    async function retried(before: number): Promise<void> {
      const until = Date.now() + MAX_HOLD_MS;
      while (uow.stats.retries <= before && Date.now() < until) await sleep(20);
    }

    /**
     * Holds a read lock on `table` while `request` runs, until its write has been run again after a
     * lock-wait timeout; returns its answer.
     */
    async function whileLocked<T>(table: string, request: () => Promise<T>): Promise<T> {
      const before = uow.stats.retries;
      await holder.query(`LOCK TABLES \`${table}\` READ`);
      const release = retried(before).then(() => holder.query('UNLOCK TABLES'));
      try {
        return await request();
      } finally {
        await release;
      }
    }

    const admin = (method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
      const req = t.http()[method](`${ADMIN_API}/${path}`).set('Authorization', adminAuth());
      return body ? req.send(body) : req;
    };

    const cases: Array<[string, string, () => ReturnType<typeof admin>, number]> = [
      [
        'PATCH config/',
        'admin_config',
        () => admin('patch', 'config/', { merchant_name: 'Locked Shop' }),
        200,
      ],
      ['POST currencies/', 'currencies', () => admin('post', 'currencies/', { code: 'EUR' }), 201],
      ['DELETE currencies/{code}/', 'currencies', () => admin('delete', 'currencies/EUR/'), 204],
      ['POST gateways/', 'gateways', () => admin('post', 'gateways/', postGateway()), 201],
      ['PATCH gateways/{code}/', 'gateways', () => admin('patch', 'gateways/spare/', { name: 'Spare' }), 200],
      ['DELETE gateways/{code}/', 'gateways', () => admin('delete', 'gateways/spare/'), 200],
      [
        'POST users/',
        'users',
        () => admin('post', 'users/', { username: 'locked', password: 'pass-1234' }),
        201,
      ],
      ['PATCH users/{id}/', 'users', () => admin('patch', `users/${userId}/`, { is_active: false }), 200],
      ['DELETE users/{id}/', 'users', () => admin('delete', `users/${userId}/`), 204],
      ['POST api-keys/', 'api_keys', () => admin('post', 'api-keys/', { name: 'locked' }), 201],
      ['DELETE api-keys/{id}/', 'api_keys', () => admin('delete', `api-keys/${apiKeyId}/`), 204],
      ['POST pymt-txn/…/redeliver/', 'deliveries', () => admin('post', eventPath), 202],
    ];
    for (const [name, table, request, status] of cases) {
      it(`${name} waits out a lock on ${table} and answers ${status}, not 503`, async () => {
        const retriesBefore = uow.stats.retries;
        const res = await whileLocked(table, request);
        assert.equal(res.status, status, JSON.stringify(res.body));
        assert.ok(uow.stats.retries > retriesBefore, 'the write was run again after the lock-wait timeout');
      });
    }

    it('DELETE a saved card waits out a lock on cards and answers 204, not 503', async () => {
      const retriesBefore = uow.stats.retries;
      const res = await whileLocked('cards', () => t.http().delete(cardPath).set('Authorization', apiKey));
      assert.equal(res.status, 204, JSON.stringify(res.body));
      assert.ok(uow.stats.retries > retriesBefore, 'the delete was run again');
    });

    it('console sign-in and sign-out wait out a lock on admin_sessions', async () => {
      const sessions = t.app.get(AdminSessionsService);
      const retriesBefore = uow.stats.retries;
      const outcome = await whileLocked('admin_sessions', () =>
        sessions.signIn(ADMIN.username, ADMIN.password, '127.0.0.7'),
      );
      assert.equal(outcome.ok, true);
      assert.ok(uow.stats.retries > retriesBefore, 'the insert was run again');
      const token = outcome.ok ? outcome.token : undefined;
      assert.ok(await sessions.resolve(token));
      await whileLocked('admin_sessions', () => sessions.signOut(token));
      assert.equal(await sessions.resolve(token), null, 'signed out');
    });

    it('ensureAdmin that loses the insert race to an uncommitted insert finds the winner and sets its password', async () => {
      const other = await createConnection({ uri: t.db.env.DATABASE_URL });
      try {
        await other.query('START TRANSACTION');
        const now = new Date();
        await other.query(
          'INSERT INTO users (username, password_hash, gateway_codes, is_admin, is_active, created_at, updated_at) VALUES (?, ?, ?, 0, 1, ?, ?)',
          ['raced.admin', await hashPassword('the-other-one-1'), '[]', now, now],
        );
        const retriesBefore = uow.stats.retries;
        const commit = retried(retriesBefore).then(() => other.query('COMMIT'));
        // Its insert waits for the other one's key lock, times out (1205), runs again, then meets
        // the committed row (duplicate key) and takes it over.
        const user = await t.app.get(UsersService).ensureAdmin('raced.admin', 'the-bootstrap-1');
        await commit;
        assert.ok(uow.stats.retries > retriesBefore, 'the insert was run again');
        assert.equal(user.isAdmin, true);
        const [stored] = (await holder.query('SELECT id, password_hash FROM users WHERE username = ?', [
          'raced.admin',
        ])) as [Array<{ id: number; password_hash: string }>, unknown];
        assert.equal(stored.length, 1, 'one row');
        assert.equal(stored[0].id, user.id);
        assert.ok(await verifyPassword('the-bootstrap-1', stored[0].password_hash));
      } finally {
        await other.end();
      }
    });
  });
}

function postGateway(): object {
  return {
    code: 'locked-gw',
    name: 'Locked',
    pg: 'sandbox',
    type: 'sandbox',
    currencies: ['KWD'],
  };
}
