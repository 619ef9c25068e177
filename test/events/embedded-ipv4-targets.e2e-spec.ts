import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { createErrors, createTransaction as createTx, txnPath } from '../transactions/helpers';
import { adminEvents, createTransaction, dataSourceOf, eventually, FAST_DELIVERY_ENV } from './event-helpers';

const PRIVATE_URL = [
  'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
];

/**
 * SSRF (contract §4 `webhook_url`, §6): IPv6 forms that carry an IPv4 address — IPv4-compatible
 * `::a.b.c.d`, IPv4-mapped, NAT64, 6to4, Teredo, ISATAP — are judged by the address they carry,
 * or refused outright, at create/update (400) and again at delivery.
 */
describe('webhook targets that embed a private IPv4 address in IPv6 (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    const { WEBHOOK_ALLOW_PRIVATE: _allowed, ...env } = FAST_DELIVERY_ENV;
    t = await startApp({ env });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  const EMBEDDED = (port: number) => [
    `http://[::7f00:1]:${port}/hook`, // IPv4-compatible 127.0.0.1
    'http://[::127.0.0.1]/hook', // the same, written dotted
    'http://[::a9fe:a9fe]/latest/meta-data', // IPv4-compatible 169.254.169.254
    'http://[::a00:1]/hook', // IPv4-compatible 10.0.0.1
    'http://[::ffff:169.254.169.254]/hook', // IPv4-mapped
    'http://[::ffff:0:7f00:1]/hook', // SIIT IPv4-translated
    'http://[64:ff9b::7f00:1]/hook', // NAT64 well-known prefix
    'http://[64:ff9b::169.254.169.254]/hook',
    'http://[64:ff9b:1::a00:1]/hook', // NAT64 local-use prefix
    'http://[2002:7f00:1::1]/hook', // 6to4 of 127.0.0.1
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', // Teredo
    'http://[2001:db8:1::5efe:a00:1]/hook', // ISATAP interface id of 10.0.0.1
    'http://[fec0::1]/hook', // site-local
  ];

  it('refuses them at create, at update and as the inquiry target (400 under webhook_url)', async () => {
    for (const url of EMBEDDED(hook.port)) {
      assert.deepEqual(await createErrors(t, s, { webhook_url: url }), { webhook_url: PRIVATE_URL }, url);
    }
    const tx = await createTx(t, s, { webhook_url: 'https://hooks.example.com/x' });
    for (const url of EMBEDDED(hook.port)) {
      const res = await t
        .http()
        .patch(txnPath(String(tx.session_id)))
        .set('Authorization', s.apiKey)
        .send({ webhook_url: url });
      assert.equal(res.status, 400, url);
      assert.deepEqual(res.body, { webhook_url: PRIVATE_URL }, url);
      const inquiry = await t
        .http()
        .post('/b/pbl/v2/inquiry/')
        .set('Authorization', s.apiKey)
        .send({ session_id: tx.session_id, notify_webhook_url: true, webhook_url: url });
      assert.equal(inquiry.status, 400, url);
    }
  });

  it('allows the forms that carry a public IPv4 address where that is how the host is reached', async () => {
    for (const url of [
      'https://[::ffff:93.184.216.34]/hook',
      'https://[64:ff9b::93.184.216.34]/hook', // what DNS64 answers on an IPv6-only network
      'https://[2606:4700:4700::1111]/hook',
    ]) {
      const tx = await createTx(t, s, { webhook_url: url });
      assert.equal(tx.webhook_url, url, url);
    }
  });

  it('refuses them at delivery too, without retrying (a stored URL redelivered)', async () => {
    const sessionId = await createTransaction(t, s, { webhook_url: 'https://hooks.example.com/x' });
    const [event] = await adminEvents(t, sessionId);
    for (const url of EMBEDDED(hook.port).slice(0, 4)) {
      await dataSourceOf(t).query(`UPDATE transactions SET webhook_url = ? WHERE session_id = ?`, [
        url,
        sessionId,
      ]);
      await t
        .http()
        .post(`/b/checkout/v1/admin/pymt-txn/${sessionId}/events/${event.event_id}/redeliver/`)
        .set('Authorization', adminAuth())
        .expect(202);
      const delivery = await eventually(async () => {
        const [listed] = await adminEvents(t, sessionId);
        const fresh = listed.deliveries.find((d) => d.target === url);
        return fresh && fresh.status !== 'pending' ? fresh : undefined;
      });
      assert.equal(delivery.status, 'failed', url);
      assert.equal(delivery.attempts, 1, url);
      assert.match(String(delivery.last_error), /^Refused: /, url);
    }
    assert.equal(hook.received.length, 0);
  });
});
