import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './app-config';
import { parseTrustProxy } from './trust-proxy';

describe('TRUST_PROXY', () => {
  it('defaults to trusting no proxy', () => {
    for (const text of [undefined, '', ' ', 'false', 'FALSE']) assert.equal(parseTrustProxy(text), false);
    assert.equal(loadConfig({}).trustProxy, false);
  });

  it('reads a hop count', () => {
    assert.equal(parseTrustProxy('0'), 0);
    assert.equal(parseTrustProxy('1'), 1);
    assert.equal(parseTrustProxy(' 32 '), 32);
    assert.equal(parseTrustProxy('33'), null);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  });

  it('reads addresses, CIDR ranges and the named ranges', () => {
    assert.deepEqual(parseTrustProxy('10.0.0.0/8, fd00::/8,loopback, 192.0.2.1,::1, UniqueLocal'), [
      '10.0.0.0/8',
      'fd00::/8',
      'loopback',
      '192.0.2.1',
      '::1',
      'uniquelocal',
    ]);
    for (const bad of [
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/8/1',
      'proxy.example',
      '10.0.0',
      '1,2',
      'loopback,',
    ]) {
      assert.equal(parseTrustProxy(bad), null, bad);
    }
  });

  it('refuses `true` and anything else at start-up, naming the variable', () => {
    for (const bad of ['true', 'yes', '-1', 'somewhere']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        (error: unknown) =>
          error instanceof ConfigError && error.problems.some((p) => p.startsWith('TRUST_PROXY=')),
        bad,
      );
    }
  });
});
