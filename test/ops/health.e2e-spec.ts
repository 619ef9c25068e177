import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../setup/test-app';

describe('health probes', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('answers liveness and readiness with 200 while the database answers', async () => {
    const live = await t.http().get('/health').expect(200);
    assert.equal(live.body.status, 'ok');
    const ready = await t.http().get('/health/ready/').expect(200);
    assert.equal(ready.body.status, 'ok');
    assert.equal(ready.body.info.database.status, 'up');
  });

  it('answers readiness with 503 once the database is gone, liveness still with 200', async () => {
    await t.app.get(DataSource).destroy();
    const ready = await t.http().get('/health/ready').expect(503);
    assert.deepEqual(ready.body, { detail: 'Service temporarily unavailable.' });
    assert.match(String(ready.headers['cache-control']), /no-store/);
    await t.http().get('/health').expect(200);
  });
});
