import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_NAMES } from '../event-types';
import { renderMessage, TemplateValues } from './templates';

const values: TemplateValues = {
  merchant: 'Acme',
  amount: '86.000',
  currency: 'KWD',
  orderNo: 'A-1',
  checkoutUrl: 'https://pay.example/b/checkout/redirect/start/?session_id=abc',
  attachmentUrl: null,
};

describe('notification templates', () => {
  it('has an English and an Arabic message for every event, filled in', () => {
    for (const event of EVENT_NAMES) {
      for (const language of ['en', 'ar']) {
        const message = renderMessage(event, language, values);
        assert.ok(message.subject.length > 0);
        assert.match(message.text, /86\.000 KWD/);
        assert.doesNotMatch(`${message.subject} ${message.text}`, /\{\w+\}/, `${event}/${language}`);
      }
    }
    assert.match(renderMessage('paid', 'ar', values).subject, /تم استلام/);
  });

  it('puts the checkout link in created, and the attachment link only when there is one', () => {
    const plain = renderMessage('created', 'en', values);
    assert.ok(plain.text.includes(values.checkoutUrl));
    assert.doesNotMatch(plain.text, /Attachment/);
    const withFile = renderMessage('created', 'en', { ...values, attachmentUrl: 'https://pay.example/f/x' });
    assert.ok(withFile.text.includes('https://pay.example/f/x'));
    assert.ok(!renderMessage('paid', 'en', values).text.includes(values.checkoutUrl));
  });

  it('falls back to English for a language without templates', () => {
    assert.deepEqual(renderMessage('paid', 'fr', values), renderMessage('paid', 'en', values));
  });
});
