import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, TestDatabase } from '../setup/test-database';
import { jsonLines, RunningService, startService, waitUntil } from './service-process';

const ADMIN_PASSWORD = 'ops-admin-Pa55word';
const API_SECRET = 'S3cretPartOfTheKeyThatMustNeverBeLogged0123';
const EMAIL = 'jane.doe.logs@example.com';
const PHONE = '+96550001234';

describe('structured logs of the running service', () => {
  let db: TestDatabase;
  let service: RunningService;
  before(async () => {
    db = await createTestDatabase();
    service = await startService({ ...db.env, ADMIN_USERNAME: 'opsadmin', ADMIN_PASSWORD });
  });
  after(async () => {
    service?.kill();
    await service?.exited.catch(() => undefined);
    await db?.drop();
  });

  it('writes JSON lines carrying the request id, with credentials and customer data never in clear', async () => {
    const body = JSON.stringify({
      type: 'e_commerce',
      amount: '1.000',
      currency_code: 'KWD',
      pg_codes: ['sandbox'],
      customer_email: EMAIL,
      customer_phone: PHONE,
    });
    const withKey = await fetch(`${service.url}/b/checkout/v1/pymt-txn/`, {
      method: 'POST',
      headers: {
        Authorization: `Api-Key abcdefgh.${API_SECRET}`,
        'Content-Type': 'application/json',
        'X-Request-Id': 'ops-log-test-1',
      },
      body,
    });
    assert.equal(withKey.status, 401);
    const basic = Buffer.from(`opsadmin:${ADMIN_PASSWORD}`).toString('base64');
    const withBasic = await fetch(`${service.url}/b/checkout/v1/pymt-txn/?card=4111111111111111`, {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/json' },
      body,
    });
    const generatedId = withBasic.headers.get('x-request-id');
    assert.ok(generatedId);
    await waitUntil(
      () => service.output.stdout.includes(`"id":"${generatedId}"`),
      'the access line of the second request',
    );

    const stdout = service.output.stdout;
    const lines = stdout.split('\n').filter((line) => line.trim() !== '');
    assert.ok(lines.length > 0);
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line}`);
    const entries = jsonLines(stdout);
    const requestIds = entries.map((e) => (e.req as { id?: string } | undefined)?.id);
    assert.ok(requestIds.includes('ops-log-test-1'), 'the caller-sent X-Request-Id is logged');
    assert.ok(requestIds.includes(generatedId), 'a generated request id is logged as answered');
    for (const secret of [API_SECRET, ADMIN_PASSWORD, basic, EMAIL, PHONE, '4111111111111111']) {
      assert.ok(!stdout.includes(secret), `the log shows ${secret} in clear`);
      assert.ok(!service.output.stderr.includes(secret), `stderr shows ${secret} in clear`);
    }
  });

  it('logs Nest start-up chatter (modules, routes) only at debug level', () => {
    const contexts = jsonLines(service.output.stdout).map((e) => e.context);
    assert.ok(!contexts.includes('InstanceLoader'));
    assert.ok(!contexts.includes('RouterExplorer'));
    assert.ok(contexts.includes('NestApplication'));
  });
});
