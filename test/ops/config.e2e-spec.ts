// test-legs: sqlite only — a DATABASE_URL refused before any database is opened (docs/testing.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runServiceToExit } from './service-process';

describe('configuration is validated at start', () => {
  it('exits non-zero naming PORT when PORT is not a number', async () => {
    const result = await runServiceToExit({ PORT: 'abc' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Invalid configuration/);
    assert.match(result.stderr, /PORT="abc"/);
  });

  it('exits non-zero naming DATABASE_URL when it is not a mysql:// URL', async () => {
    const result = await runServiceToExit({ DATABASE_URL: 'postgres://x' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /DATABASE_URL="postgres:\/\/x": DATABASE_URL must be a mysql:\/\//);
  });

  it('reports every bad variable at once', async () => {
    const result = await runServiceToExit({ PORT: '65536', LOG_LEVEL: 'loud', EXPIRY_SWEEP_SECONDS: '0' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PORT="65536"/);
    assert.match(result.stderr, /LOG_LEVEL="loud"/);
    assert.match(result.stderr, /EXPIRY_SWEEP_SECONDS="0"/);
  });
});
