import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/app-config';
import { AuthThrottleService, failureKey } from './auth-throttle.service';

const throttle = () =>
  new AuthThrottleService(loadConfig({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '60' }));
const ann = (source: string) => failureKey(source, 'basic:ann');

describe('AuthThrottleService', () => {
  it('answers 429 to failures past the limit of one key, until its window ends', () => {
    const t = throttle();
    const key = ann('1.2.3.4');
    assert.equal(t.recordFailure(key, 0), 0);
    assert.equal(t.recordFailure(key, 1000), 0);
    assert.equal(t.recordFailure(key, 2000), 0);
    assert.equal(t.recordFailure(key, 2000), 58);
    assert.equal(t.recordFailure(key, 59_500), 1);
    assert.equal(t.recordFailure(key, 60_000), 0, 'a new window');
  });

  it('counts a source and an identity together: other sources and other names keep their budget', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) t.recordFailure(ann('10.0.0.1'), 0);
    assert.ok(t.recordFailure(ann('10.0.0.1'), 0) > 0);
    assert.equal(t.recordFailure(ann('10.0.0.2'), 0), 0, 'the same name from another source');
    assert.equal(t.recordFailure(failureKey('10.0.0.1', 'basic:bob'), 0), 0, 'another name');
    assert.equal(t.recordFailure(failureKey('10.0.0.1', 'api-key:ann'), 0), 0, 'another scheme');
  });

  it('a success clears its own key only', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) {
      t.recordFailure(ann('10.0.0.1'), 0);
      t.recordFailure(ann('10.0.0.2'), 0);
    }
    t.recordSuccess(ann('10.0.0.1'));
    assert.equal(t.recordFailure(ann('10.0.0.1'), 0), 0);
    assert.ok(t.recordFailure(ann('10.0.0.2'), 0) > 0);
  });
});
