import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MPGS_SETTINGS, resolveMpgsSettings } from './mpgs-settings';

describe('MPGS settings', () => {
  const required = { merchant_id: 'TEST123', api_password: 'pw', api_base_url: 'https://bank.example/' };

  it('apply the defaults: API version 100, timeout 8000, no trailing slash', () => {
    assert.deepEqual(resolveMpgsSettings(required), {
      merchantId: 'TEST123',
      apiPassword: 'pw',
      apiBaseUrl: 'https://bank.example',
      apiVersion: 100,
      notificationSecret: null,
      merchantName: null,
      timeoutMs: 8000,
    });
  });

  it('name the key that is missing or wrong, never its value', () => {
    assert.throws(() => resolveMpgsSettings({ ...required, api_password: '' }), /"api_password" is required/);
    assert.throws(() => resolveMpgsSettings({ ...required, api_base_url: 'ftp://x' }), /"api_base_url"/);
    assert.throws(() => resolveMpgsSettings({ ...required, api_version: 62 }), /"api_version"/);
    assert.throws(() => resolveMpgsSettings({ ...required, timeout_ms: 9001 }), /"timeout_ms"/);
  });

  it('the catalogue marks the password and the notification secret as secrets', () => {
    assert.deepEqual(
      MPGS_SETTINGS.filter((s) => s.secret).map((s) => s.name),
      ['api_password', 'notification_secret'],
    );
    assert.deepEqual(
      MPGS_SETTINGS.filter((s) => s.required).map((s) => s.name),
      ['merchant_id', 'api_password', 'api_base_url'],
    );
  });
});
