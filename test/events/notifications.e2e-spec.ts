import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { decodeMail, SmtpSink } from '../sinks/smtp-sink';
import { createTransaction, FAST_DELIVERY_ENV, settled, transition } from './event-helpers';

const CUSTOMER = { customer_email: 'customer@example.com', customer_phone: '+96550000000' };

describe('e-mail and SMS notifications', () => {
  let t: TestApp;
  let s: Seeded;
  let smtp: SmtpSink;
  let sms: HttpReceiver;
  before(async () => {
    smtp = await SmtpSink.start();
    sms = await HttpReceiver.start();
    t = await startApp({
      env: {
        ...FAST_DELIVERY_ENV,
        SMTP_URL: smtp.url,
        SMS_PROVIDER_URL: sms.url,
        SMTP_FROM: 'Shop <shop@example.com>',
      },
    });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await smtp.stop();
    await sms.stop();
  });

  it('sends created by e-mail to the customer and every recipient, and by SMS, with the checkout link', async () => {
    const mailsBefore = smtp.mails.length;
    const smsBefore = sms.received.length;
    const sessionId = await createTransaction(t, s, {
      ...CUSTOMER,
      order_no: 'N-1',
      email_recipients: ['ops@example.com', 'customer@example.com'],
      notifications: { email: ['created'], sms: ['created'] },
    });
    const [event] = await settled(t, sessionId);
    const channels = event.deliveries.map((d) => `${d.channel}:${d.target}:${d.status}`).sort();
    assert.deepEqual(channels, [
      'email:customer@example.com:delivered',
      'email:ops@example.com:delivered',
      'sms:+96550000000:delivered',
    ]);
    const mails = smtp.mails.slice(mailsBefore);
    assert.deepEqual(mails.map((m) => m.to[0]).sort(), ['customer@example.com', 'ops@example.com']);
    const checkoutUrl = `${t.url}/b/checkout/redirect/start/?session_id=${sessionId}`;
    const mail = decodeMail(mails[0].raw);
    assert.equal(mails[0].from, 'shop@example.com');
    assert.equal(mail.subject, 'Payment request from Checkout');
    assert.ok(mail.text.includes(checkoutUrl), mail.text);
    assert.ok(mail.text.includes('86.000 KWD (order N-1)'), mail.text);
    const [text] = sms.received.slice(smsBefore);
    assert.equal(text.json.to, '+96550000000');
    assert.equal(text.json.event, 'created');
    assert.equal(text.json.session_id, sessionId);
    assert.equal(text.json.language, 'en');
    assert.ok(String(text.json.body).includes(checkoutUrl));
  });

  it("writes in the transaction's language (ar)", async () => {
    const mailsBefore = smtp.mails.length;
    const smsBefore = sms.received.length;
    const sessionId = await createTransaction(t, s, {
      ...CUSTOMER,
      language: 'ar',
      notifications: { email: ['created'], sms: ['created'] },
    });
    await settled(t, sessionId);
    const mail = decodeMail(smtp.mails[mailsBefore].raw);
    assert.equal(mail.subject, 'طلب دفع من Checkout');
    assert.match(mail.text, /ادفع هنا: http/);
    assert.match(String(sms.received[smsBefore].json.body), /يطلب Checkout دفع مبلغ 86\.000 KWD/);
    assert.equal(sms.received[smsBefore].json.language, 'ar');
  });

  it('sends only the events the transaction listed, per channel; error sends the failed notification', async () => {
    const sessionId = await createTransaction(t, s, {
      ...CUSTOMER,
      notifications: { email: ['failed', 'paid'], sms: ['paid'] },
    });
    const [created] = await settled(t, sessionId);
    assert.deepEqual(created.deliveries, []);
    const mailsBefore = smtp.mails.length;
    const smsBefore = sms.received.length;
    await transition(t, sessionId, 'error', 'failed', { referenceNumber: 'R-9', result: 'error' });
    const events = await settled(t, sessionId);
    assert.deepEqual(
      events[1].deliveries.map((d) => `${d.channel}:${d.status}`),
      ['email:delivered'],
    );
    assert.equal(smtp.mails.length, mailsBefore + 1);
    assert.equal(decodeMail(smtp.mails[mailsBefore].raw).subject, 'Payment failed');
    assert.equal(sms.received.length, smsBefore);
    await transition(t, sessionId, 'paid', 'paid', { result: 'success' }, { paidAmount: '86' });
    const after = await settled(t, sessionId);
    assert.deepEqual(after[2].deliveries.map((d) => `${d.channel}:${d.status}`).sort(), [
      'email:delivered',
      'sms:delivered',
    ]);
    assert.equal(decodeMail(smtp.mails[mailsBefore + 1].raw).subject, 'Payment received');
  });

  it('retries an SMS provider that answers 503, and logs the attempts', async () => {
    const smsBefore = sms.received.length;
    sms.responder = (_, i) => (i === smsBefore ? { status: 503 } : { status: 202 });
    try {
      const sessionId = await createTransaction(t, s, { ...CUSTOMER, notifications: { sms: ['created'] } });
      const [event] = await settled(t, sessionId);
      const [delivery] = event.deliveries;
      assert.equal(delivery.status, 'delivered');
      assert.deepEqual(
        delivery.attempt_log.map((a) => a.status_code),
        [503, 202],
      );
    } finally {
      sms.responder = () => ({ status: 200 });
    }
  });
});

describe('notifications without a transport', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  it('keeps each message as skipped with the reason, and still delivers the webhook', async () => {
    const sessionId = await createTransaction(t, s, {
      ...CUSTOMER,
      webhook_url: hook.url,
      notifications: { email: ['created'], sms: ['created'] },
    });
    const [event] = await settled(t, sessionId);
    const byChannel = Object.fromEntries(event.deliveries.map((d) => [d.channel, d]));
    assert.equal(byChannel.webhook.status, 'delivered');
    assert.equal(byChannel.email.status, 'skipped');
    assert.match(String(byChannel.email.last_error), /SMTP_URL is not configured/);
    assert.equal(byChannel.sms.status, 'skipped');
    assert.match(String(byChannel.sms.last_error), /SMS_PROVIDER_URL is not configured/);
    assert.equal(byChannel.email.attempts, 0);
  });
});
