import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseRetrySchedule } from './app-config';

describe('event delivery configuration', () => {
  it('defaults to a 15 s timeout, a growing retry schedule and a 3-day window', () => {
    const config = loadConfig({});
    assert.equal(config.webhookTimeoutMs, 15_000);
    assert.deepEqual(
      config.webhookRetryDelaysMs,
      [5_000, 60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
    );
    assert.equal(config.webhookMaxAgeSeconds, 259_200);
    assert.equal(config.dispatchIntervalMs, 1000);
    assert.ok(config.dispatchLeaseMs > config.webhookTimeoutMs);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE with units and rejects anything else, naming the variable', () => {
    assert.deepEqual(parseRetrySchedule('200ms, 5s,1m,2h,1d'), [200, 5000, 60_000, 7_200_000, 86_400_000]);
    assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '100ms,1s' }).webhookRetryDelaysMs, [100, 1000]);
    for (const bad of ['soon', '5', '5s,', '5x', '-5s']) {
      assert.throws(
        () => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }),
        (e: unknown) => e instanceof ConfigError && /WEBHOOK_RETRY_SCHEDULE/.test(e.message),
        bad,
      );
    }
  });

  it('needs a lease longer than the timeout, so a live attempt never loses its claim', () => {
    assert.equal(loadConfig({ WEBHOOK_TIMEOUT_MS: '2000', DISPATCH_LEASE_MS: '2001' }).dispatchLeaseMs, 2001);
    assert.throws(
      () => loadConfig({ WEBHOOK_TIMEOUT_MS: '2000', DISPATCH_LEASE_MS: '2000' }),
      /DISPATCH_LEASE_MS/,
    );
  });

  it('bounds the timeout (100 ms to 120 s) and the interval (≥ 10 ms)', () => {
    assert.equal(loadConfig({ WEBHOOK_TIMEOUT_MS: '100' }).webhookTimeoutMs, 100);
    assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '99' }), /WEBHOOK_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '120001' }), /WEBHOOK_TIMEOUT_MS/);
    assert.equal(loadConfig({ DISPATCH_INTERVAL_MS: '10' }).dispatchIntervalMs, 10);
    assert.throws(() => loadConfig({ DISPATCH_INTERVAL_MS: '9' }), /DISPATCH_INTERVAL_MS/);
    assert.throws(() => loadConfig({ WEBHOOK_MAX_AGE_SECONDS: '0' }), /WEBHOOK_MAX_AGE_SECONDS/);
  });
});
