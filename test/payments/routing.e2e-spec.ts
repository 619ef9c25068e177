import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import type { ProviderOverride } from '../../src/app.factory';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import { GatewayRouting } from '../../src/payments/gateway-routing';
import { openPaymentPage, savedCardChoices } from '../checkout/page-helpers';
import { dataSourceOf } from '../events/event-helpers';
import { listCards } from './saved-card-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { adminAuth, gatewayInput, seedBasics, type Seeded } from '../setup/fixtures';
import { ADMIN, startApp, type TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';
import { consoleSignIn, sessionTokenOf } from '../admin/console-sign-in';
import { assertMoneyAudit, attemptsOf, sessionIdOf } from './stripe-helpers';

const GATEWAYS = '/b/checkout/v1/admin/gateways/';
const DRIVERS = '/b/checkout/v1/admin/gateway-drivers/';
/** Nothing listens there: a connection is refused at once. */
const REFUSING = 'http://127.0.0.1:9';
/**
 * Payments of the failover measurement: contract §21's 100 on the embedded database; 25 on MySQL,
 * where the same path runs again (the measurement is the router's, not the database's).
 */
const PAYMENTS = testDbKind() === 'mysql' ? 25 : 100;
const ENV = { PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' };

/** One route decision as retrieve shows it. */
interface Decision {
  gateway: string;
  outcome: string;
  at: string;
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Routing across gateways (contract §21) end to end, against two Stripe simulators (two terminals of
 * one merchant), a route whose host refuses connections and one that accepts and never answers:
 * failover only where no money can have moved, health shared in the database, the decisions shown,
 * and everything after the payment on the member that took it — ending with the money audit of each
 * simulator (every charge on exactly one transaction, no mismatch).
 */
describe('routing gateways: one payment method, several providers', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let ds: DataSource;
  let simA: StripeSimulator;
  let simB: StripeSimulator;
  /** Accepts connections and never answers (a provider that hangs). */
  let hanging: Server;
  const held: Socket[] = [];
  const since = new Date();

  const memberUrl = (code: string): string => {
    const port = (hanging.address() as { port: number }).port;
    if (code.startsWith('stripe-refused')) return REFUSING;
    if (code === 'stripe-hang') return `http://127.0.0.1:${port}`;
    return code === 'stripe-a' ? simA.baseUrl : simB.baseUrl;
  };

  /** The members' stored settings, pointing at the simulators (a router's own settings are its stored ones). */
  const overrides = (): ProviderOverride[] => [
    {
      provide: DRIVER_SETTINGS,
      useValue: {
        of: (gateway: Gateway) =>
          Promise.resolve(
            gateway.pg !== 'stripe'
              ? {}
              : {
                  secret_key: (gateway.code.startsWith('stripe-b') ? simB : simA).secretKey,
                  webhook_secret: (gateway.code.startsWith('stripe-b') ? simB : simA).webhookSecret,
                  api_base_url: memberUrl(gateway.code),
                  // The hanging route keeps the default limit: the router's own bound applies.
                  timeout_ms: gateway.code === 'stripe-hang' ? 8000 : 3000,
                },
          ),
      },
    },
  ];

  before(async () => {
    [simA, simB] = await Promise.all([StripeSimulator.start(), StripeSimulator.start()]);
    hanging = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    t = await startApp({ env: ENV, overrides: overrides() });
    simA.webhookUrl = `${t.url}/b/checkout/v1/gateways/stripe-a/notify/`;
    simB.webhookUrl = `${t.url}/b/checkout/v1/gateways/stripe-b/notify/`;
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
    const gateways = t.app.get(GatewaysService);
    const member = { pg: 'stripe', type: 'sandbox' as const, tokenizable: false, currencies: ['KWD', 'USD'] };
    for (const code of ['stripe-a', 'stripe-b', 'stripe-refused', 'stripe-hang'])
      await gateways.create(gatewayInput({ ...member, code, name: `Stripe ${code}` }));
    await gateways.create(
      gatewayInput({ ...member, code: 'stripe-auth', name: 'Stripe (authorize)', operation: 'authorize' }),
    );
    await gateways.create(gatewayInput({ ...member, code: 'stripe-usd', currencies: ['USD'] }));
    for (const code of ['stripe-refused-cards', 'stripe-b-cards'])
      await gateways.create(gatewayInput({ ...member, code, name: `Stripe ${code}`, tokenizable: true }));
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
    await Promise.all([simA.stop(), simB.stop()]);
    await t.close();
  });

  const saveRouter = async (
    code: string,
    settings: Record<string, unknown>,
    status = 201,
    tokenizable = false,
  ) => {
    const res = await t
      .http()
      .post(GATEWAYS)
      .set('Authorization', adminAuth())
      .send({
        code,
        name: `Router ${code}`,
        pg: 'router',
        type: 'sandbox',
        currencies: ['KWD'],
        tokenizable,
        settings,
      });
    assert.equal(res.status, status, res.text);
    return res.body as Record<string, unknown>;
  };
  const routeErrors = async (settings: Record<string, unknown>, more: Record<string, unknown> = {}) => {
    const res = await t
      .http()
      .post(GATEWAYS)
      .set('Authorization', adminAuth())
      .send({
        code: 'bad-router',
        name: 'Bad router',
        pg: 'router',
        type: 'sandbox',
        currencies: ['KWD'],
        tokenizable: false,
        settings,
        ...more,
      });
    assert.equal(res.status, 400, res.text);
    return (res.body as { settings: Record<string, string[]> }).settings;
  };

  const get = (path: string) => fetch(new URL(path, t.url), { redirect: 'manual' });

  /** A transaction on `router`, picked on the checkout page: where the customer was sent, and how long the pick took. */
  async function pick(router: string) {
    const tx = await d.create({ pg_codes: [router], currency_code: 'KWD' });
    const id = String(tx.session_id);
    const started = performance.now();
    const res = await get(`/b/checkout/pay/${router}?session_id=${id}`);
    const ms = performance.now() - started;
    return { id, res, ms, location: res.headers.get('location') };
  }

  const routingOf = async (id: string) => (await d.get(id)).routing as Decision[];
  const attemptGateways = async (id: string) =>
    (
      await ds.query<{ pg_code: string }[]>(
        'SELECT a.pg_code FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id WHERE t.session_id = ? ORDER BY a.id',
        [id],
      )
    ).map((row) => row.pg_code);

  /** The gateways of the attempts that reached a provider (its session stored). */
  const sessionGateways = async (id: string) =>
    (
      await ds.query<{ pg_code: string }[]>(
        'SELECT a.pg_code FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id WHERE t.session_id = ? AND a.provider_data IS NOT NULL ORDER BY a.id',
        [id],
      )
    ).map((row) => row.pg_code);

  describe('saving a router (400 under settings.routes)', () => {
    it('is listed by the drivers endpoint with its settings', async () => {
      const res = await t.http().get(DRIVERS).set('Authorization', adminAuth()).expect(200);
      const router = (res.body as { pg: string; flow: string; settings: { name: string }[] }[]).find(
        (driver) => driver.pg === 'router',
      );
      assert.ok(router, 'the router driver is listed');
      assert.equal(router.flow, 'redirect');
      assert.deepEqual(
        router.settings.map((setting) => setting.name),
        ['routes', 'strategy', 'failover', 'unhealthy_after', 'cooldown_seconds'],
      );
    });

    it('refuses an unknown member, a router as member, and more than 5 routes', async () => {
      await saveRouter('r-ok', { routes: [{ gateway: 'stripe-a' }, { gateway: 'stripe-b' }] });
      assert.deepEqual(await routeErrors({ routes: [{ gateway: 'nope' }] }), {
        routes: ['Gateway "nope" does not exist.'],
      });
      assert.deepEqual(await routeErrors({ routes: [{ gateway: 'r-ok' }] }), {
        routes: ['Gateway "r-ok" is a routing gateway: routes name payment gateways.'],
      });
      const six = ['stripe-a', 'stripe-b', 'stripe-refused', 'stripe-hang', 'stripe-usd', 'stripe-auth'];
      assert.deepEqual(await routeErrors({ routes: six.map((gateway) => ({ gateway })) }), {
        routes: ['Ensure this field has no more than 5 routes.'],
      });
      assert.deepEqual(await routeErrors({}), { routes: ['This field is required.'] });
    });

    it('refuses a member that cannot honour the router: its currencies, operation, card saving, flow', async () => {
      assert.deepEqual(await routeErrors({ routes: [{ gateway: 'stripe-usd' }] }), {
        routes: ['Gateway "stripe-usd" does not take KWD.'],
      });
      assert.deepEqual(await routeErrors({ routes: [{ gateway: 'stripe-auth' }] }), {
        routes: ['Gateway "stripe-auth" does operation "authorize"; this router does "purchase".'],
      });
      assert.deepEqual(await routeErrors({ routes: [{ gateway: 'stripe-a' }] }, { tokenizable: true }), {
        routes: ['Gateway "stripe-a" cannot save cards; this router does.'],
      });
      // The sandbox gateway takes the card on our own page: nothing to fail over before money moves.
      const errors = await routeErrors({ routes: [{ gateway: 'sandbox' }] });
      assert.match(errors.routes[0], /Gateway "sandbox" does not send the customer to its provider's page/);
    });

    it('refuses malformed routes, weights and choices, each under its setting', async () => {
      assert.deepEqual(
        await routeErrors({
          routes: [{ gateway: 'stripe-a', weight: 0 }, { gateway: 'stripe-a' }],
          strategy: 'random',
          failover: 'maybe',
          unhealthy_after: 0,
        }),
        {
          routes: [
            'Route 1: "weight" must be an integer from 1 to 100.',
            'Gateway "stripe-a" is routed to twice.',
          ],
          strategy: ['"random" is not a valid choice: priority, weighted.'],
          failover: ['Must be a valid boolean.'],
          unhealthy_after: ['Ensure this value is greater than or equal to 1.'],
        },
      );
      assert.deepEqual(await routeErrors({ routes: 'stripe-a' }), {
        routes: ['Enter the routes as a JSON list, such as [{"gateway": "mpgs-a"}, {"gateway": "stripe"}].'],
      });
      assert.deepEqual(await routeErrors({ routes: [] }), { routes: ['Name at least one route.'] });
    });
  });

  describe('failover only where no money can have moved', () => {
    it(`first route refusing connections: ${PAYMENTS} of ${PAYMENTS} payments start on the second, adding at most 1 s at p95`, async () => {
      await saveRouter('r-refused', {
        routes: [{ gateway: 'stripe-refused' }, { gateway: 'stripe-b' }],
        cooldown_seconds: 3600,
      });
      const direct: number[] = [];
      const routed: number[] = [];
      const ids: string[] = [];
      // Five customers at a time on each: a burst, without starving the test files beside this one.
      for (let batch = 0; batch < PAYMENTS / 5; batch++) {
        const picks = await Promise.all([
          ...Array.from({ length: 5 }, () => pick('r-refused')),
          ...Array.from({ length: 5 }, () => pick('stripe-b')),
        ]);
        for (const [i, p] of picks.entries()) {
          assert.equal(p.res.status, 303, `pick ${i}: ${await p.res.text()}`);
          assert.match(p.location!, new RegExp(`^${simB.baseUrl}/c/pay/`));
          (i < 5 ? routed : direct).push(p.ms);
          if (i < 5) ids.push(p.id);
        }
      }
      assert.equal(ids.length, PAYMENTS);
      for (const id of ids) {
        // A refused start leaves its attempt released (never charged, nothing at any provider).
        assert.deepEqual(
          await sessionGateways(id),
          ['stripe-b'],
          `the one provider session of ${id} is on the second route`,
        );
        const routing = await routingOf(id);
        assert.deepEqual(routing.at(-1)?.gateway, 'stripe-b');
        assert.equal(routing.at(-1)?.outcome, 'started');
        assert.ok(
          routing.slice(0, -1).every((r) => r.gateway === 'stripe-refused' && r.outcome !== 'started'),
          JSON.stringify(routing),
        );
      }
      // The first three failures in a row opened its circuit: the later ones skip it without a call.
      const outcomes = (await Promise.all(ids.map(routingOf)))
        .flat()
        .filter((r) => r.gateway === 'stripe-refused');
      assert.ok(outcomes.filter((r) => r.outcome === 'unavailable').length >= 3);
      assert.ok(
        outcomes.filter((r) => r.outcome === 'skipped_unhealthy').length >= PAYMENTS - 10,
        'the open circuit skips it',
      );
      const added = percentile(routed, 95) - percentile(direct, 95);
      assert.ok(added <= 1000, `routing added ${added.toFixed(0)} ms at p95`);
      const metrics = await t.http().get('/metrics').set('Authorization', adminAuth()).expect(200);
      assert.match(metrics.text, /checkout_route_healthy\{router="r-refused",gateway="stripe-refused"\} 0/);
      assert.match(metrics.text, /checkout_route_healthy\{router="r-refused",gateway="stripe-b"\} 1/);
      assert.match(
        metrics.text,
        new RegExp(
          `checkout_route_attempts_total\\{router="r-refused",gateway="stripe-b",outcome="started"\\} ${PAYMENTS}\n`,
        ),
      );
    });

    it('first route hanging: every choice answers within 10 s; the open circuit skips it at once; after the cooldown one trial', async () => {
      await saveRouter('r-hang', {
        routes: [{ gateway: 'stripe-hang' }, { gateway: 'stripe-b' }],
        unhealthy_after: 2,
        cooldown_seconds: 3,
      });
      const first = await Promise.all([pick('r-hang'), pick('r-hang')]);
      for (const p of first) {
        assert.equal(p.res.status, 303);
        assert.ok(p.ms < 10_000, `answered in ${p.ms.toFixed(0)} ms`);
        assert.ok(p.ms > 2000, 'the hanging route was waited for');
        assert.deepEqual(await attemptGateways(p.id), ['stripe-hang', 'stripe-b']);
        assert.deepEqual(await sessionGateways(p.id), ['stripe-b']);
      }
      const skipping = await pick('r-hang');
      assert.equal(skipping.res.status, 303);
      assert.ok(
        skipping.ms < 1500,
        `the open circuit skips the route at once (${skipping.ms.toFixed(0)} ms)`,
      );
      assert.deepEqual(
        (await routingOf(skipping.id)).map((r) => [r.gateway, r.outcome]),
        [
          ['stripe-hang', 'skipped_unhealthy'],
          ['stripe-b', 'started'],
        ],
      );
      await new Promise((resolve) => setTimeout(resolve, 3100)); // the cooldown
      const trial = await pick('r-hang');
      assert.equal(trial.res.status, 303);
      assert.deepEqual(
        (await routingOf(trial.id)).map((r) => [r.gateway, r.outcome]),
        [
          ['stripe-hang', 'unavailable'],
          ['stripe-b', 'started'],
        ],
        'tried once again after the cooldown',
      );
    });

    it('with failover off, a route that cannot start answers 503 and nothing starts elsewhere', async () => {
      await saveRouter('r-nofail', {
        routes: [{ gateway: 'stripe-refused' }, { gateway: 'stripe-b' }],
        failover: false,
        unhealthy_after: 100,
      });
      const p = await pick('r-nofail');
      assert.equal(p.res.status, 503);
      assert.deepEqual(await attemptGateways(p.id), ['stripe-refused']);
      assert.deepEqual(
        (await routingOf(p.id)).map((r) => [r.gateway, r.outcome]),
        [['stripe-refused', 'unavailable']],
      );
    });

    it('a decline is the customer’s to retry: it does not fail over; coming back resumes the same session', async () => {
      await saveRouter('r-ab', { routes: [{ gateway: 'stripe-a' }, { gateway: 'stripe-b' }] });
      const p = await pick('r-ab');
      assert.equal(p.res.status, 303);
      assert.match(p.location!, new RegExp(`^${simA.baseUrl}/c/pay/`));
      const again = await get(`/b/checkout/pay/r-ab?session_id=${p.id}`);
      assert.equal(again.headers.get('location'), p.location, 'the open session on the member is resumed');
      const [attempt] = await attemptsOf(ds, p.id);
      const declined = simA.pay(sessionIdOf(attempt), '4000000000000002');
      assert.ok(declined.error);
      assert.deepEqual(await attemptGateways(p.id), ['stripe-a'], 'no attempt elsewhere after a decline');
      assert.equal((await d.get(p.id)).state, 'created');
    });
  });

  describe('after the payment, the member rules', () => {
    it('paid on the second route: retrieve and the webhook carry gateway_code and the decisions; a refund reaches that member', async () => {
      const p = await pick('r-refused');
      const [attempt] = await attemptsOf(ds, p.id);
      const { redirect } = simB.pay(sessionIdOf(attempt));
      assert.equal((await get(redirect!)).status, 200);
      const tx = await d.get(p.id);
      assert.equal(tx.state, 'paid');
      assert.deepEqual(tx.pg_codes, ['r-refused']);
      assert.equal(tx.gateway_code, 'stripe-b');
      assert.equal((tx.routing as Decision[]).at(-1)?.outcome, 'started');
      const [paid] = await ds.query<{ payload: string | Record<string, unknown> }[]>(
        "SELECT e.payload FROM events e JOIN transactions t ON t.id = e.transaction_id WHERE t.session_id = ? AND e.event = 'paid'",
        [p.id],
      );
      const payload = (typeof paid.payload === 'string' ? JSON.parse(paid.payload) : paid.payload) as Record<
        string,
        unknown
      >;
      assert.equal(payload.gateway_code, 'stripe-b');
      assert.equal(payload.gateway_account, 'r-refused');
      assert.deepEqual(payload.routing, tx.routing);

      // The console's transaction page shows the member and the decisions.
      const signedIn = await consoleSignIn(t, ADMIN.username, ADMIN.password);
      const page = await t
        .http()
        .get(`/admin/transactions/${p.id}`)
        .set('Cookie', `checkout_admin=${sessionTokenOf(signedIn)}`)
        .expect(200);
      assert.match(page.text, /<h2 id="routing">Routing<\/h2>/);
      assert.match(
        page.text,
        /<td>stripe-refused<\/td>\s*<td>\s*(unavailable \(failed over\)|skipped \(unhealthy\))\s*<\/td>/,
      );
      assert.match(page.text, /<td>stripe-b<\/td>\s*<td>\s*started\s*<\/td>/);

      const refund = await d.operate({ operation: 'refund', session_id: p.id });
      assert.equal(refund.status, 200, JSON.stringify(refund.body));
      const intent = simB.session(sessionIdOf(attempt))!.payment_intent as string;
      assert.equal(simB.refundsOf(intent).length, 1, 'the refund reached the member that took the money');
      assert.equal((await d.get(p.id)).state, 'refunded');
    });

    it('a card saved by a routed payment belongs to its member; auto-debit charges it there and never fails over', async () => {
      await saveRouter(
        'r-cards',
        {
          routes: [{ gateway: 'stripe-refused-cards' }, { gateway: 'stripe-b-cards' }],
          unhealthy_after: 100,
        },
        201,
        true,
      );
      const tx = await d.create({
        pg_codes: ['r-cards'],
        customer_id: 'cust-routed',
        payment_type: 'save_card',
      });
      const id = String(tx.session_id);
      let location = (await get(`/b/checkout/pay/r-cards?session_id=${id}`)).headers.get('location');
      if (location === null) {
        // Our page first (it offers the saved cards): go on to the provider.
        const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/r-cards?session_id=${id}`);
        const posted = await t
          .http()
          .post(page.path)
          .set('Cookie', page.cookie)
          .type('form')
          .send({ csrf_token: page.token, saved_card: '' });
        assert.equal(posted.status, 303, posted.text);
        location = String(posted.headers.location);
      }
      assert.match(location, new RegExp(`^${simB.baseUrl}/c/pay/`));
      const [attempt] = (await attemptsOf(ds, id)).filter((a) => a.provider_data !== null);
      const paid = simB.pay(sessionIdOf(attempt), '4242424242424242', {
        expMonth: 11,
        expYear: 2031,
        name: 'Ada Lovelace',
      });
      assert.ok(paid.redirect, paid.error);
      await get(paid.redirect);
      assert.equal((await d.get(id)).state, 'paid');
      const [card] = await listCards(t, s.apiKey, 'cust-routed');
      assert.equal(card.pg_code, 'stripe-b-cards', 'the card is the member’s');

      const debited = await d.create({ pg_codes: ['r-cards'], customer_id: 'cust-routed', amount: '12.340' });
      const debitedId = String(debited.session_id);
      const res = await t
        .http()
        .post('/b/pbl/v2/auto-debit/')
        .set('Authorization', s.apiKey)
        .send({ session_id: debitedId, token: card.token })
        .expect(200);
      assert.equal(res.body.result, 'success');
      assert.deepEqual(await attemptGateways(debitedId), ['stripe-b-cards'], 'charged on its member only');
      const after = await d.get(debitedId);
      assert.equal(after.gateway_code, 'stripe-b-cards');
      assert.deepEqual(after.routing, [], 'a saved card is not routed');
      // The page of a new routed transaction offers the member's card.
      const next = await d.create({ pg_codes: ['r-cards'], customer_id: 'cust-routed' });
      const page = await openPaymentPage(
        t,
        `${t.url}/b/checkout/pay/r-cards?session_id=${String(next.session_id)}`,
      );
      assert.equal(savedCardChoices(page.html).length, 1);
    });

    it('weighted 70/30: 1 000 choices land within 3 points of the weights (on MySQL, by two replicas sharing the health)', async () => {
      await saveRouter('r-weighted', {
        routes: [
          { gateway: 'stripe-a', weight: 70 },
          { gateway: 'stripe-b', weight: 30 },
        ],
        strategy: 'weighted',
      });
      // On MySQL a second replica on the same database: the round-robin and the circuits are shared.
      const replicas = [t];
      if (t.db.kind === 'mysql')
        replicas.push(await startApp({ env: ENV, overrides: overrides(), db: t.db }));
      try {
        const router = (await t.app.get(GatewaysService).findByCode('r-weighted'))!;
        const choose = (i: number) => replicas[i % replicas.length].app.get(GatewayRouting).plan(router);
        let first = 0;
        const rounds = await Promise.all(
          Array.from({ length: 4 }, async (_, lane) => {
            let mine = 0;
            for (let i = lane; i < 1000; i += 4)
              if ((await choose(i)).routes[0].gateway === 'stripe-a') mine++;
            return mine;
          }),
        );
        first = rounds.reduce((sum, n) => sum + n, 0);
        assert.ok(Math.abs(first - 700) <= 30, `${first} of 1000 on the 70 route`);
        // The circuit the first replica opened (the refusing route) is open for every replica.
        const refusing = (await t.app.get(GatewaysService).findByCode('r-refused'))!;
        for (const replica of replicas) {
          const plan = await replica.app.get(GatewayRouting).plan(refusing);
          assert.deepEqual(
            plan.routes.map((r) => [r.gateway, r.state]),
            [
              ['stripe-refused', 'open'],
              ['stripe-b', 'closed'],
            ],
          );
        }
      } finally {
        for (const replica of replicas.slice(1)) await replica.app.close();
      }
    });

    it('money audit: every charge at each member on exactly one transaction, none paid twice, no mismatch', async () => {
      // A payment on the first member too, so that both ledgers hold money.
      const p = await pick('r-ab');
      const [attempt] = await attemptsOf(ds, p.id);
      const { redirect } = simA.pay(sessionIdOf(attempt));
      assert.equal((await get(redirect!)).status, 200);
      assert.equal((await d.get(p.id)).gateway_code, 'stripe-a');
      await assertMoneyAudit(t, ds, simA, since);
      await assertMoneyAudit(t, ds, simB, since);
    });
  });
});
