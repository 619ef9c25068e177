import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonLines, RunningService, startService, waitUntil } from '../ops/service-process';
import { createTestDatabase, TestDatabase } from '../setup/test-database';

const ADMIN_PASSWORD = 'log-admin-Pa55word';
const EMAIL = 'jane.searched@example.com';
const PHONE = '96550007777';
const CUSTOMER = 'customer-8f3a91';

/** contract §14: card-holder data in a query string never reaches the access log in clear. */
describe('access log of the running service: searched customer data', () => {
  let db: TestDatabase;
  let service: RunningService;
  before(async () => {
    db = await createTestDatabase();
    service = await startService({ ...db.env, ADMIN_USERNAME: 'logadmin', ADMIN_PASSWORD });
  });
  after(async () => {
    service?.kill();
    await service?.exited.catch(() => undefined);
    await db?.drop();
  });

  it('redacts customer_email, phone and customer_id in the admin API, the console and the card routes', async () => {
    const basic = `Basic ${Buffer.from(`logadmin:${ADMIN_PASSWORD}`).toString('base64')}`;
    const requests: [string, RequestInit, string][] = [
      [
        `/b/checkout/v1/admin/pymt-txn/?customer_email=${encodeURIComponent(EMAIL)}`,
        { headers: { Authorization: basic } },
        'api-email',
      ],
      [
        `/b/checkout/v1/admin/pymt-txn/?state=paid&customer_email=${EMAIL}`,
        { headers: { Authorization: basic } },
        'api-email-raw',
      ],
      [
        `/b/checkout/v1/admin/pymt-txn/?customer_phone=%2B${PHONE}&phone=${PHONE}`,
        { headers: { Authorization: basic } },
        'api-phone',
      ],
      [
        `/admin/transactions?customer_email=${encodeURIComponent(EMAIL)}&state=paid`,
        { redirect: 'manual' },
        'console-email',
      ],
      [
        `/b/pbl/v2/card/${'t'.repeat(32)}/?customer_id=${CUSTOMER}&type=sandbox`,
        { method: 'DELETE', headers: { Authorization: basic } },
        'card-customer',
      ],
    ];
    for (const [path, init, id] of requests) {
      const res = await fetch(`${service.url}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), 'X-Request-Id': `redaction-${id}` },
      });
      assert.ok(res.status < 500, `${path}: ${res.status}`);
      await res.arrayBuffer();
    }
    await waitUntil(
      () => requests.every(([, , id]) => service.output.stdout.includes(`"id":"redaction-${id}"`)),
      'the access lines of the requests',
    );
    const urls = Object.fromEntries(
      jsonLines(service.output.stdout)
        .map((entry) => entry.req as { id?: string; url?: string } | undefined)
        .filter((req) => req?.id?.startsWith('redaction-'))
        .map((req) => [req!.id, req!.url]),
    );
    // (the logged path is the routed one: without its trailing slash)
    assert.equal(urls['redaction-api-email'], '/b/checkout/v1/admin/pymt-txn?customer_email=[redacted]');
    assert.equal(
      urls['redaction-api-email-raw'],
      '/b/checkout/v1/admin/pymt-txn?state=paid&customer_email=[redacted]',
    );
    assert.equal(
      urls['redaction-api-phone'],
      '/b/checkout/v1/admin/pymt-txn?customer_phone=[redacted]&phone=[redacted]',
    );
    assert.equal(urls['redaction-console-email'], '/admin/transactions?customer_email=[redacted]&state=paid');
    assert.equal(
      urls['redaction-card-customer'],
      `/b/pbl/v2/card/${'t'.repeat(32)}?customer_id=[redacted]&type=sandbox`,
    );
    for (const secret of [EMAIL, encodeURIComponent(EMAIL), 'jane.searched', PHONE, CUSTOMER]) {
      assert.ok(!service.output.stdout.includes(secret), `the log shows ${secret} in clear`);
      assert.ok(!service.output.stderr.includes(secret), `stderr shows ${secret} in clear`);
    }
  });
});
