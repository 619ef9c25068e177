import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ExpiryService } from '../../src/expiry/expiry.service';
import { Metrics } from '../../src/metrics/metrics';
import {
  createTransaction,
  dataSourceOf,
  eventually,
  FAST_DELIVERY_ENV,
  unitOf,
} from '../events/event-helpers';
import { insertDueTransactions } from '../factories/due-transactions';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';

const METRICS_TOKEN = 'metrics-token-0123456789';

/** The value of one series in a Prometheus text exposition (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

/** contract §18: `GET /metrics`, protected, and series that move with what the service does. */
describe('GET /metrics', () => {
  let t: TestApp;
  let s: Seeded;
  let failing: HttpReceiver;
  before(async () => {
    failing = await HttpReceiver.start(() => ({ status: 500 }));
    t = await startApp({
      env: {
        ...FAST_DELIVERY_ENV,
        WEBHOOK_RETRY_SCHEDULE: '1h',
        METRICS_TOKEN,
        DISPATCH_INTERVAL_MS: '3600000',
      },
    });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await failing.stop();
  });

  const scrape = async (): Promise<string> => {
    const res = await t.http().get('/metrics').set('Authorization', adminAuth()).expect(200);
    return res.text;
  };

  it('answers admins and the metrics token only', async () => {
    const res = await t.http().get('/metrics').set('Authorization', adminAuth()).expect(200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(res.headers['cache-control'], 'no-store');
    await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);

    const anonymous = await t.http().get('/metrics').expect(401);
    assert.equal(anonymous.body.detail, 'Authentication credentials were not provided.');
    const wrongToken = await t
      .http()
      .get('/metrics')
      .set('Authorization', 'Bearer not-the-token')
      .expect(401);
    assert.deepEqual(wrongToken.body, { detail: 'Invalid metrics token.' });
    assert.equal(wrongToken.headers['www-authenticate'], 'Bearer realm="metrics"');
    await t.http().get('/metrics').set('Authorization', s.merchant).expect(403);
    await t.http().get('/metrics').set('Authorization', s.apiKey).expect(401);
    assert.doesNotMatch(res.text, new RegExp(METRICS_TOKEN));
  });

  it('counts requests by route pattern and status, never by raw path', async () => {
    const route = '/b/checkout/v1/pymt-txn';
    const labels = { method: 'POST', route, status: '201' };
    const before = sample(await scrape(), 'http_request_duration_seconds_count', labels) ?? 0;
    const sessionId = await createTransaction(t, s);
    await t.http().get(`/b/checkout/v1/pymt-txn/${sessionId}`).set('Authorization', s.apiKey).expect(200);
    // A marker no sample value can contain (a digit string may turn up in a float by chance).
    await t.http().get('/no/such/path/raw-path-marker').expect(404);
    const text = await scrape();
    assert.equal(sample(text, 'http_request_duration_seconds_count', labels), before + 1);
    assert.ok(
      (sample(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: `${route}/:session_id`,
        status: '200',
      }) ?? 0) >= 1,
    );
    assert.ok(
      (sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' }) ?? 0) >= 1,
    );
    assert.doesNotMatch(text, new RegExp(sessionId), 'no series is labelled with a session id');
    assert.doesNotMatch(text, /raw-path-marker|no\/such\/path/);
  });

  it('shows a failing webhook receiver as backlog, its age and retried deliveries', async () => {
    const before = await scrape();
    assert.equal(sample(before, 'checkout_outbox_backlog', { channel: 'webhook' }), 0);
    assert.equal(sample(before, 'checkout_outbox_oldest_pending_age_seconds', { channel: 'webhook' }), 0);
    const retriesBefore =
      sample(before, 'checkout_deliveries_total', { channel: 'webhook', result: 'retry' }) ?? 0;

    await createTransaction(t, s, { webhook_url: failing.url });
    await failing.waitFor(1, 3000);
    const text = await eventually(
      async () => {
        const now = await scrape();
        const retried =
          sample(now, 'checkout_deliveries_total', { channel: 'webhook', result: 'retry' }) ?? 0;
        return retried > retriesBefore ? now : undefined;
      },
      3000,
      'the failed attempt counted',
    );
    assert.equal(
      sample(text, 'checkout_deliveries_total', { channel: 'webhook', result: 'retry' }),
      retriesBefore + 1,
    );
    assert.equal(sample(text, 'checkout_outbox_backlog', { channel: 'webhook' }), 1);
    assert.equal(sample(text, 'checkout_outbox_backlog', { channel: 'email' }), 0);
    await new Promise((r) => setTimeout(r, 20));
    const age = sample(await scrape(), 'checkout_outbox_oldest_pending_age_seconds', { channel: 'webhook' });
    assert.ok(age !== undefined && age > 0 && age < 60, `oldest pending age ${age}`);
  });

  it('counts state transitions, expiry sweeps and what they expired', async () => {
    const before = await scrape();
    const cancels =
      sample(before, 'checkout_state_transitions_total', { trigger: 'cancel', to: 'canceled' }) ?? 0;
    const expiredBefore = sample(before, 'checkout_expired_transactions_total') ?? 0;
    const sweepsBefore = sample(before, 'checkout_expiry_sweep_duration_seconds_count') ?? 0;

    const sessionId = await createTransaction(t, s);
    await t
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', s.apiKey)
      .send({ operation: 'cancel', session_id: sessionId })
      .expect(200);
    await insertDueTransactions(dataSourceOf(t), 3);
    const swept = await t.app.get(ExpiryService).sweep();
    assert.equal(swept.expired, 3);

    const text = await scrape();
    assert.equal(
      sample(text, 'checkout_state_transitions_total', { trigger: 'cancel', to: 'canceled' }),
      cancels + 1,
    );
    assert.equal(sample(text, 'checkout_state_transitions_total', { trigger: 'expire', to: 'expired' }), 3);
    assert.equal(sample(text, 'checkout_expired_transactions_total'), expiredBefore + 3);
    assert.equal(sample(text, 'checkout_expiry_sweep_duration_seconds_count'), sweepsBefore + 1);
  });

  it('reports a connection held by a unit of work as in use', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const unit = unitOf(t).run(async (manager) => {
      await manager.query('SELECT 1');
      await held;
    });
    await new Promise((r) => setTimeout(r, 50));
    // Straight from the registry: over HTTP, authentication would wait for the embedded database.
    const scraping = t.app.get(Metrics).scrape();
    release();
    await unit;
    assert.ok((sample(await scraping, 'checkout_db_pool_connections', { state: 'in_use' }) ?? 0) >= 1);
  });

  it('reports the database pool, unit-of-work retries and the process', async () => {
    const text = await scrape();
    const inUse = sample(text, 'checkout_db_pool_connections', { state: 'in_use' });
    const waiting = sample(text, 'checkout_db_pool_connections', { state: 'waiting' });
    assert.ok(inUse !== undefined && inUse >= 0, `in use ${inUse}`);
    assert.equal(waiting, 0);
    assert.equal(sample(text, 'checkout_unit_of_work_retries_total'), 0);
    assert.equal(sample(text, 'checkout_unit_of_work_exhausted_total'), 0);
    assert.ok((sample(text, 'process_cpu_seconds_total') ?? 0) > 0);
  });
});
