import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mpgsNotificationMeta, verifyMpgsNotification } from './mpgs-notification';

describe('MPGS notification verification', () => {
  const secret = '8F2C1A9E0B7D4C3A';

  it('accepts the configured X-Notification-Secret, whatever the header name case', () => {
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': secret }, secret), true);
    assert.equal(verifyMpgsNotification({ 'X-Notification-Secret': secret }, secret), true);
  });

  it('refuses a wrong, missing, repeated or empty secret, and everything when none is configured', () => {
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': `${secret}0` }, secret), false);
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': secret.slice(1) }, secret), false);
    assert.equal(verifyMpgsNotification({}, secret), false);
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': [secret, secret] }, secret), false);
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': '' }, secret), false);
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': secret }, null), false);
    assert.equal(verifyMpgsNotification({ 'x-notification-secret': '' }, ''), false);
  });

  it('reads the notification id and attempt', () => {
    assert.deepEqual(mpgsNotificationMeta({ 'x-notification-id': 'n-1', 'x-notification-attempt': '2' }), {
      id: 'n-1',
      attempt: 2,
    });
    assert.deepEqual(mpgsNotificationMeta({ 'x-notification-attempt': 'x' }), { id: null, attempt: null });
  });
});
