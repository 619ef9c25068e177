import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/app-config';
import { AuthThrottleService } from './auth-throttle.service';

const throttle = () =>
  new AuthThrottleService(loadConfig({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '60' }));

describe('AuthThrottleService', () => {
  it('throttles a key once it reaches the limit, until its window ends', () => {
    const t = throttle();
    const keys = ['ip:1.2.3.4', 'id:basic:ann'];
    t.recordFailure(keys, 0);
    t.recordFailure(keys, 1000);
    assert.equal(t.retryAfter(keys, 1000), 0);
    t.recordFailure(keys, 2000);
    assert.equal(t.retryAfter(keys, 2000), 58);
    assert.equal(t.retryAfter(keys, 59_500), 1);
    assert.equal(t.retryAfter(keys, 60_000), 0);
  });

  it('throttles one username from any address, and one address for any username', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) t.recordFailure([`ip:10.0.0.${i}`, 'id:basic:ann'], 0);
    assert.ok(t.retryAfter(['ip:10.0.0.99', 'id:basic:ann'], 0) > 0);
    assert.equal(t.retryAfter(['ip:10.0.0.99', 'id:basic:bob'], 0), 0);
    for (let i = 0; i < 3; i++) t.recordFailure(['ip:10.9.9.9', `id:basic:user${i}`], 0);
    assert.ok(t.retryAfter(['ip:10.9.9.9', 'id:basic:new'], 0) > 0);
  });

  it('forgets an identity on success', () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) t.recordFailure([`ip:10.0.0.${i}`, 'id:basic:ann'], 0);
    t.recordSuccess('id:basic:ann');
    t.recordFailure(['ip:10.0.0.7', 'id:basic:ann'], 0);
    assert.equal(t.retryAfter(['ip:10.0.0.8', 'id:basic:ann'], 0), 0);
  });
});
