import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningService } from '../ops/service-process';
import { storedStripeSettings } from '../payments/stripe-helpers';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { HttpReceiver } from '../sinks/http-receiver';
import {
  adminCall,
  call,
  dropDatabase,
  freshDatabase,
  inParallel,
  rows,
  startReplicas,
  stopReplica,
  summarize,
  TX_PATH,
  txBody,
  waitFor,
} from './cluster-helpers';

/** How many transactions each race runs on (at least 30, so that the races are many). */
const COUNT = 40;
/** Transactions raced at once: each sends two or five requests together. */
const PARALLEL = 8;
const AMOUNT = '86.000';
const AMOUNT_MINOR = 86000;

interface Pick {
  status: number;
  location: string | null;
}

interface Picked {
  id: string;
  reference: string;
  stripeSession: string;
}

/**
 * contract §17 and §20 ("a payment the provider approved is never dropped nor charged twice, also
 * across replicas on Galera"), through a redirect driver: the `stripe` driver against the Stripe
 * simulator, with two replicas on two Galera nodes. The gateway's settings are stored through the
 * admin API (secrets encrypted under the SECRETS_KEY both replicas share), as in a deployment.
 *
 * 1. The pick race: the customer's "pay with Stripe" reaches both replicas at once. One attempt
 *    claims the transaction (a conditional write, contract §17) and creates the Checkout Session;
 *    the other pick is refused (409, the checkout page) or sent back to that same session.
 * 2. The settle race: after Stripe's page took the payment, the customer's return reaches replica
 *    A while Stripe's signed notifications reach replica B and duplicates of them reach A, all at
 *    once: the attempt is stored and settled once, one `paid` event and one merchant webhook, and
 *    Stripe charged once.
 *
 * The replicas' PUBLIC_BASE_URLs differ (one port each); a load balancer would give both one
 * origin, so the test sends the return to replica A's origin with Stripe's path and query.
 */
describe('paying through a redirect driver (Stripe) with two replicas on two Galera nodes', () => {
  let db: string;
  let a: RunningService;
  let b: RunningService;
  let auth: string;
  let hook: HttpReceiver;
  let sim: StripeSimulator;
  let picked: Picked[] = [];

  before(async () => {
    // No webhookUrl: the simulator records Stripe's events, and the test delivers each to the
    // replica it picks (deliverEvent), as a load balancer in front of the endpoint would.
    sim = await StripeSimulator.start();
    hook = await HttpReceiver.start();
    db = await freshDatabase();
    const env = {
      SECRETS_KEY: randomBytes(32).toString('base64'),
      // The reconciler runs on both replicas and may join the settle race (settling is conditional).
      PAYMENT_RECONCILE_SECONDS: '2',
      PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '10',
    };
    [a, b] = await startReplicas(db, [[0], env], [[1], env]);
    const currency = await adminCall(a, 'POST', 'currencies/', { code: 'KWD' });
    assert.equal(currency.status, 201, JSON.stringify(currency.body));
    const gateway = await adminCall(a, 'POST', 'gateways/', {
      code: 'stripe',
      name: 'Stripe',
      pg: 'stripe',
      type: 'sandbox',
      currencies: ['KWD'],
      settings: storedStripeSettings(sim),
    });
    assert.equal(gateway.status, 201, JSON.stringify(gateway.body));
    assert.deepEqual(gateway.body.secrets_set, ['secret_key', 'webhook_secret']);
    const key = await adminCall(a, 'POST', 'api-keys/', { name: 'redirect cluster tests' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    auth = `Api-Key ${String(key.body.key)}`;
  });

  after(async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
    if (db) await dropDatabase(db);
    await hook?.stop();
    await sim?.stop();
  });

  /** The customer's "pay with Stripe" on the checkout page, through one replica (not followed). */
  async function pick(replica: RunningService, sessionId: string): Promise<Pick> {
    try {
      const res = await fetch(`${replica.url}/b/checkout/pay/stripe?session_id=${sessionId}`, {
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      return { status: res.status, location: res.headers.get('location') };
    } catch (error) {
      return { status: 0, location: String(error) };
    }
  }

  /** The replicas' log lines (warnings and above) that name one of `texts`, for a failure's message. */
  function logsAbout(texts: string[]): string {
    return [a, b]
      .flatMap((replica, n) =>
        replica.output.stdout
          .split('\n')
          .filter((line) => /"level":[4-6]0/.test(line) && texts.some((t) => line.includes(t)))
          .map((line) => `[replica ${'AB'[n]}] ${line.slice(0, 400)}`),
      )
      .join('\n');
  }

  /** Checkout Sessions Stripe created (not an Idempotency-Key replay), by client_reference_id. */
  function sessionsCreated(): Map<string, number> {
    const created = new Map<string, number>();
    for (const r of sim.apiRequests('PostCheckoutSessions')) {
      if (r.status !== 200 || r.replayed) continue;
      const reference = String(r.params?.client_reference_id);
      created.set(reference, (created.get(reference) ?? 0) + 1);
    }
    return created;
  }

  /** Stripe's events about one payment: its session's (client_reference_id) and its intent's and charge's (metadata). */
  function eventsOf(reference: string) {
    return sim.events.filter((event) => {
      const object = (event.data as { object: Record<string, unknown> }).object;
      const metadata = (object.metadata ?? {}) as Record<string, unknown>;
      return object.client_reference_id === reference || metadata.reference_number === reference;
    });
  }

  it(`creates one Checkout Session per transaction when ${COUNT} picks each reach both replicas at once`, async () => {
    const created = await inParallel(COUNT, 10, (i) =>
      call('POST', `${(i % 2 ? a : b).url}${TX_PATH}`, {
        body: txBody({ order_no: `rdr-${i}`, amount: AMOUNT, pg_codes: ['stripe'], webhook_url: hook.url }),
        headers: { Authorization: auth },
      }),
    );
    assert.equal(
      summarize(created, (x) => x.status === 201),
      '',
    );
    const ids = created.map((c) => String(c.body.session_id));

    const pairs = await inParallel(COUNT, PARALLEL, (i) => Promise.all([pick(a, ids[i]), pick(b, ids[i])]));
    const unexpected = pairs.flat().filter((p) => p.status !== 303 && p.status !== 409);
    assert.deepEqual(unexpected, [], 'each pick is sent to Stripe (303) or refused (409)');

    const attempts = await rows<{
      session_id: string;
      reference_number: string;
      provider_data: string | null;
    }>(
      `SELECT t.session_id, a.reference_number, a.provider_data FROM \`${db}\`.payment_attempts a
       JOIN \`${db}\`.transactions t ON t.id = a.transaction_id WHERE t.order_no LIKE 'rdr-%'`,
    );
    const holders = await rows<{ session_id: string; attempt_in_flight: string | null; state: string }>(
      `SELECT session_id, attempt_in_flight, state FROM \`${db}\`.transactions WHERE order_no LIKE 'rdr-%'`,
    );
    const sessions = sessionsCreated();
    let resumed = 0;
    picked = ids.map((id, i) => {
      const mine = attempts.filter((x) => x.session_id === id);
      assert.equal(
        mine.length,
        1,
        `${id}: exactly one attempt (${JSON.stringify({ attempts: mine, picks: pairs[i] })})\n${logsAbout(mine.map((x) => x.reference_number))}`,
      );
      const [attempt] = mine;
      const holder = holders.find((h) => h.session_id === id);
      assert.equal(holder?.state, 'created', `${id}: still payable`);
      assert.equal(holder?.attempt_in_flight, attempt.reference_number, `${id}: the attempt holds it`);
      const stripeSession = String(
        (JSON.parse(attempt.provider_data ?? '{}') as { session_id?: string }).session_id,
      );
      assert.equal(sessions.get(attempt.reference_number), 1, `${id}: one Checkout Session at Stripe`);
      assert.equal(sim.session(stripeSession)?.status, 'open');
      const sent = pairs[i].filter((p) => p.status === 303);
      assert.ok(sent.length >= 1, `${id}: at least one pick went to Stripe`);
      for (const p of sent)
        assert.equal(p.location, `${sim.baseUrl}/c/pay/${stripeSession}`, `${id}: its one session`);
      if (sent.length === 2) resumed++;
      return { id, reference: attempt.reference_number, stripeSession };
    });
    assert.equal(
      [...sessions.values()].reduce((n, x) => n + x, 0),
      COUNT,
      'no Checkout Session for anything else',
    );
    console.log(
      `pick race: ${COUNT - resumed} second picks refused (409), ${resumed} resumed the same session`,
    );
  });

  it('settles each payment once when the return reaches replica A while Stripe notifies B (and A again) at once', async () => {
    assert.equal(picked.length, COUNT, 'the pick race ran first');
    const notify = (replica: RunningService) => `${replica.url}/b/checkout/v1/gateways/stripe/notify/`;

    const raced = await inParallel(COUNT, PARALLEL, async (i) => {
      const { reference, stripeSession } = picked[i];
      const { redirect, error } = sim.pay(stripeSession);
      assert.ok(redirect, `${reference}: paid on Stripe's page (${error})`);
      const events = eventsOf(reference);
      const settling = events.filter((e) =>
        ['checkout.session.completed', 'payment_intent.succeeded'].includes(String(e.type)),
      );
      assert.equal(settling.length, 2, `${reference}: Stripe says it was paid`);
      const back = new URL(redirect);
      const [returned, ...deliveries] = await Promise.all([
        fetch(`${a.url}${back.pathname}${back.search}`, {
          redirect: 'manual',
          signal: AbortSignal.timeout(30_000),
        }).then(async (res) => ({
          status: res.status,
          refresh: res.headers.get('refresh'),
          html: await res.text(),
        })),
        ...events.map((e) => sim.deliverEvent(e.id, notify(b))),
        ...settling.map((e) => sim.deliverEvent(e.id, notify(a))),
      ]);
      return { reference, returned, deliveries };
    });

    for (const { reference, returned, deliveries } of raced) {
      assert.equal(returned.status, 200, `${reference}: the return shows the result`);
      assert.equal(returned.refresh, null, `${reference}: not the "being confirmed" page`);
      assert.match(returned.html, new RegExp(reference));
      for (const d of deliveries) assert.equal(d.status, 200, `${reference}: ${d.type} answered 2xx`);
    }

    const paidHooks = () => hook.received.filter((r) => r.json.event === 'paid');
    await waitFor(`${COUNT} paid webhooks`, 30_000, () =>
      Promise.resolve(new Set(paidHooks().map((r) => String(r.json.session_id))).size === COUNT),
    );
    await sleep(2000); // a second delivery of any of them would arrive meanwhile (dispatch every 200 ms)

    const states = await rows<{ state: string; n: number }>(
      `SELECT state, COUNT(*) AS n FROM \`${db}\`.transactions WHERE order_no LIKE 'rdr-%' GROUP BY state`,
    );
    assert.deepEqual(
      states.map((s) => [s.state, Number(s.n)]),
      [['paid', COUNT]],
    );
    const attempts = await rows<{
      session_id: string;
      result: string;
      response_code: string;
      settled: number;
    }>(
      `SELECT t.session_id, a.result, a.response_code, a.settled_at IS NOT NULL AS settled
       FROM \`${db}\`.payment_attempts a JOIN \`${db}\`.transactions t ON t.id = a.transaction_id
       WHERE t.order_no LIKE 'rdr-%'`,
    );
    assert.equal(attempts.length, COUNT, 'one attempt per transaction, no other');
    assert.deepEqual(
      attempts.filter(
        (x) => x.result !== 'success' || x.response_code !== 'succeeded' || Number(x.settled) !== 1,
      ),
      [],
      'each attempt a settled success',
    );
    const held = await rows(
      `SELECT session_id FROM \`${db}\`.transactions WHERE order_no LIKE 'rdr-%' AND attempt_in_flight IS NOT NULL`,
    );
    assert.deepEqual(held, [], 'no attempt still holds its transaction');
    const paidEvents = await rows<{ session_id: string; n: number }>(
      `SELECT e.session_id, COUNT(*) AS n FROM \`${db}\`.events e
       JOIN \`${db}\`.transactions t ON t.id = e.transaction_id
       WHERE e.event = 'paid' AND t.order_no LIKE 'rdr-%' GROUP BY e.session_id`,
    );
    assert.equal(paidEvents.length, COUNT);
    assert.deepEqual(
      paidEvents.filter((e) => Number(e.n) !== 1),
      [],
      'exactly one paid event each',
    );
    const hooks = new Map<string, number>();
    for (const r of paidHooks())
      hooks.set(String(r.json.session_id), (hooks.get(String(r.json.session_id)) ?? 0) + 1);
    assert.deepEqual(
      [...hooks.values()].filter((n) => n !== 1),
      [],
      'exactly one paid webhook each',
    );

    // Stripe's side: one PaymentIntent per payment, charged once, nothing refunded or expired.
    for (const { reference, stripeSession } of picked) {
      const events = eventsOf(reference);
      const count = (type: string) => events.filter((e) => e.type === type).length;
      assert.equal(count('payment_intent.created'), 1, `${reference}: one PaymentIntent`);
      assert.equal(count('charge.succeeded'), 1, `${reference}: charged once`);
      const intent = sim.paymentIntent(String(sim.session(stripeSession)?.payment_intent));
      assert.equal(intent?.status, 'succeeded');
      assert.equal(intent?.amount_received, AMOUNT_MINOR);
    }
    assert.equal(sim.apiRequests('PostPaymentIntents').length, 0, 'no other charge');
    assert.equal(sim.apiRequests('PostRefunds').length, 0, 'nothing refunded');
    assert.equal(sim.apiRequests('PostCheckoutSessionsSessionExpire').length, 0, 'no session abandoned');
  });
});
