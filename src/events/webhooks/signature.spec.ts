import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { payloadSignature, standardWebhookSecret, standardWebhookSignature } from './signature';

describe('webhook signature', () => {
  it('matches the contract’s test vector', () => {
    assert.equal(
      payloadSignature(
        { amount: '86.000', currency_code: 'KWD', customer_first_name: 'example-customer' },
        'pu9MpX3yPR',
      ),
      '6143b8ad4bd283540721ab000f6de746e722231aaaa90bc38f639081d3ff9f67',
    );
  });

  it('ignores empty, null and unsigned keys but not signed ones', () => {
    const base = { amount: '86.000', currency_code: 'KWD', customer_first_name: 'example-customer' };
    const expected = payloadSignature(base, 'pu9MpX3yPR');
    assert.equal(
      payloadSignature(
        { ...base, order_no: null, customer_email: '', extra: { a: 1 }, event: 'paid' },
        'pu9MpX3yPR',
      ),
      expected,
    );
    assert.notEqual(payloadSignature({ ...base, state: 'paid' }, 'pu9MpX3yPR'), expected);
    assert.notEqual(payloadSignature(base, 'pu9MpX3yPr'), expected);
  });

  it('produces Standard Webhooks headers the standardwebhooks library verifies', () => {
    const key = 'pu9MpX3yPR';
    const body = JSON.stringify({ event: 'paid' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardWebhookSignature('msg_1', timestamp, body, key),
    };
    assert.deepEqual(new Webhook(standardWebhookSecret(key)).verify(body, headers), { event: 'paid' });
    assert.throws(() => new Webhook(standardWebhookSecret('other-key')).verify(body, headers));
  });
});
