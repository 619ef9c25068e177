import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createErrors, createTransaction } from './helpers';

describe('create: webhook_url with WEBHOOK_ALLOW_PRIVATE=true', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('accepts loopback, private, link-local and local host names', async () => {
    for (const url of [
      'http://127.0.0.1:9000/hook',
      'http://localhost:9000/hook',
      'http://10.0.0.5/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/hook',
      'http://[::1]:9000/hook',
    ]) {
      assert.equal((await createTransaction(t, s, { webhook_url: url })).webhook_url, url);
    }
  });

  it('still requires an absolute http(s) URL of at most 200 characters', async () => {
    assert.deepEqual(await createErrors(t, s, { webhook_url: 'ftp://127.0.0.1/hook' }), {
      webhook_url: ['Enter a valid URL.'],
    });
    assert.deepEqual(await createErrors(t, s, { webhook_url: `http://127.0.0.1/${'a'.repeat(184)}` }), {
      webhook_url: ['Ensure this field has no more than 200 characters.'],
    });
  });
});
