import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Stripe from 'stripe';
import { HttpReceiver } from '../../sinks/http-receiver';
import { StripeSimulator } from './stripe-simulator';

interface ErrorBody {
  error: { type: string; code?: string; param?: string; message: string; decline_code?: string };
}

const SESSION_FORM = [
  'mode=payment',
  'success_url=https%3A%2F%2Fshop.example%2Fok%3Fs%3D%7BCHECKOUT_SESSION_ID%7D',
  'cancel_url=https%3A%2F%2Fshop.example%2Fcancel',
  'client_reference_id=ref-1',
  'line_items[0][quantity]=1',
  'line_items[0][price_data][currency]=kwd',
  'line_items[0][price_data][unit_amount]=12340',
  'line_items[0][price_data][product_data][name]=Order%201',
];

/**
 * The Stripe simulator itself (contract §20, "Tested offline"): requests that do not fit Stripe's
 * OpenAPI document are refused the way Stripe refuses them, the hosted page pays, declines and
 * cancels, and the webhook controls hold, reorder, duplicate, replay, delay and forge events.
 */
describe('Stripe simulator', () => {
  let sim: StripeSimulator;
  let hooks: HttpReceiver;
  before(async () => {
    hooks = await HttpReceiver.start();
    sim = await StripeSimulator.start({ webhookUrl: hooks.url });
  });
  after(async () => {
    await sim.stop();
    await hooks.stop();
  });
  beforeEach(() => {
    hooks.received.length = 0;
  });

  const api = (
    method: 'GET' | 'POST',
    path: string,
    form: string[] = [],
    headers: Record<string, string> = {},
  ) =>
    fetch(`${sim.baseUrl}${path}${method === 'GET' && form.length ? `?${form.join('&')}` : ''}`, {
      method,
      headers: {
        Authorization: `Bearer ${sim.secretKey}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      body: method === 'POST' ? form.join('&') : undefined,
    });
  const newSession = async (extra: string[] = []) => {
    const response = await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, ...extra]);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as { id: string; url: string; status: string };
  };
  const refusal = async (response: Response, status: number) => {
    assert.equal(response.status, status);
    return ((await response.json()) as ErrorBody).error;
  };

  describe('validation against the OpenAPI document', () => {
    it('names the spec version and commit it was taken from', () => {
      const source = JSON.stringify(sim.openapiSource);
      assert.match(source, /github\.com\/stripe\/openapi/);
      assert.match(source, /"commit":"[0-9a-f]{40}"/);
    });

    it('accepts a request that fits', async () => {
      assert.equal((await newSession()).status, 'open');
    });

    it('refuses an unknown parameter, top-level or nested, with parameter_unknown', async () => {
      const top = await refusal(
        await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, 'colour=red']),
        400,
      );
      assert.deepEqual(
        { type: top.type, code: top.code, param: top.param, message: top.message },
        {
          type: 'invalid_request_error',
          code: 'parameter_unknown',
          param: 'colour',
          message: 'Received unknown parameter: colour',
        },
      );
      const nested = await refusal(
        await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, 'payment_intent_data[capture]=later']),
        400,
      );
      assert.equal(nested.code, 'parameter_unknown');
      assert.equal(nested.param, 'payment_intent_data[capture]');
      const query = await refusal(
        await api('GET', '/v1/payment_intents/pi_x', ['expand[0]=x', 'page=2']),
        400,
      );
      assert.equal(query.param, 'page');
    });

    it('refuses a missing required parameter with parameter_missing', async () => {
      const error = await refusal(
        await api(
          'POST',
          '/v1/checkout/sessions',
          SESSION_FORM.filter((p) => !p.startsWith('success_url')),
        ),
        400,
      );
      assert.equal(error.code, 'parameter_missing');
      assert.equal(error.param, 'success_url');
      const search = await refusal(await api('GET', '/v1/payment_intents/search', ['limit=3']), 400);
      assert.equal(search.param, 'query');
    });

    it('refuses a value of the wrong type or outside the enum', async () => {
      const integer = await refusal(
        await api('POST', '/v1/checkout/sessions', [
          ...SESSION_FORM.filter((p) => !p.includes('unit_amount')),
          'line_items[0][price_data][unit_amount]=12.34',
        ]),
        400,
      );
      assert.equal(integer.code, 'parameter_invalid_integer');
      assert.equal(integer.param, 'line_items[0][price_data][unit_amount]');
      const choice = await refusal(
        await api('POST', '/v1/checkout/sessions', [
          ...SESSION_FORM,
          'payment_intent_data[capture_method]=later',
        ]),
        400,
      );
      assert.equal(choice.param, 'payment_intent_data[capture_method]');
      assert.match(choice.message, /automatic, automatic_async, manual/);
    });

    it('answers 404 for a URL or method Stripe does not serve', async () => {
      const unknown = await refusal(await api('GET', '/v1/checkout/sessionz'), 404);
      assert.match(unknown.message, /Unrecognized request URL \(GET: \/v1\/checkout\/sessionz\)/);
      await refusal(await api('POST', '/v1/refunds/re_1/cancel'), 404);
    });

    it('refuses a three-decimal amount whose last digit is not 0', async () => {
      const error = await refusal(
        await api('POST', '/v1/checkout/sessions', [
          ...SESSION_FORM.filter((p) => !p.includes('unit_amount')),
          'line_items[0][price_data][unit_amount]=12345',
        ]),
        400,
      );
      assert.equal(error.param, 'line_items[0][price_data][unit_amount]');
      assert.match(error.message, /nearest ten/);
    });

    it('answers 401 in Stripe’s error shape without a key or with a wrong one', async () => {
      const none = await refusal(await fetch(`${sim.baseUrl}/v1/payment_intents/pi_1`), 401);
      assert.equal(none.type, 'invalid_request_error');
      assert.match(none.message, /You did not provide an API key/);
      const wrongKey = 'sk_test_0123456789abcdefWXYZ';
      const wrong = await refusal(
        await api('GET', '/v1/payment_intents/pi_1', [], { Authorization: `Bearer ${wrongKey}` }),
        401,
      );
      assert.match(wrong.message, /Invalid API Key provided: sk_test_\*+WXYZ/);
      assert.ok(!wrong.message.includes(wrongKey));
      const basic = await api('GET', '/v1/payment_intents/search', ["query=status:'succeeded'"], {
        Authorization: `Basic ${Buffer.from(`${sim.secretKey}:`).toString('base64')}`,
      });
      assert.equal(basic.status, 200, 'the key is also accepted as the Basic user name');
    });
  });

  describe('idempotency and test controls', () => {
    it('replays a stored answer, and refuses the key on another request', async () => {
      const key = { 'Idempotency-Key': `k-${Date.now()}` };
      const first = await api('POST', '/v1/customers', ['email=a%40example.com'], key);
      const again = await api('POST', '/v1/customers', ['email=a%40example.com'], key);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(await again.json(), await first.json());
      const other = await refusal(await api('POST', '/v1/customers', ['email=b%40example.com'], key), 400);
      assert.equal(other.type, 'idempotency_error');
      const elsewhere = await refusal(await api('POST', '/v1/checkout/sessions', SESSION_FORM, key), 400);
      assert.equal(elsewhere.type, 'idempotency_error');
    });

    it('fails the next calls with 500 (or another status), before doing anything', async () => {
      sim.failNext(2, 503);
      const customers = sim.apiRequests('PostCustomers').length;
      assert.equal((await refusal(await api('POST', '/v1/customers'), 503)).type, 'api_error');
      assert.equal((await api('POST', '/v1/customers')).status, 503);
      assert.equal((await api('POST', '/v1/customers')).status, 200);
      assert.equal(
        sim.apiRequests('PostCustomers').length - customers,
        1,
        'the failed calls reached no operation',
      );
    });

    it('delays an answer after carrying the request out', async () => {
      sim.delayAnswers(400);
      const started = Date.now();
      const response = await api('POST', '/v1/customers');
      assert.ok(Date.now() - started >= 400);
      assert.equal(response.status, 200);
    });

    it('records every request with its decoded params and answer', async () => {
      const session = await newSession(['metadata[order]=42']);
      const recorded = sim.apiRequests('PostCheckoutSessions').at(-1)!;
      assert.equal(recorded.status, 200);
      assert.deepEqual(recorded.params?.metadata, { order: '42' });
      assert.equal((recorded.response as { id: string }).id, session.id);
    });

    it('sets a PaymentIntent’s state', async () => {
      const session = await newSession(['payment_intent_data[capture_method]=manual']);
      sim.pay(session.id);
      const intentId = sim.session(session.id)!.payment_intent as string;
      sim.setPaymentIntentStatus(intentId, 'canceled');
      const intent = (await (
        await api('GET', `/v1/payment_intents/${intentId}`)
      ).json()) as Stripe.PaymentIntent;
      assert.equal(intent.status, 'canceled');
      assert.equal(intent.amount_capturable, 0);
    });
  });

  describe('hosted payment page', () => {
    const page = (path: string, form?: Record<string, string>) =>
      fetch(path, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
        body: form ? new URLSearchParams(form).toString() : undefined,
      });

    it('shows the amount, a card field, Pay and a link back to cancel_url', async () => {
      const session = await newSession();
      const html = await (await page(session.url)).text();
      assert.match(html, /12\.340 KWD/);
      assert.match(html, /id="cardNumber"/);
      assert.match(html, />Pay</);
      assert.match(html, /id="cancel" href="https:\/\/shop\.example\/cancel"/);
    });

    it('declines a declining test card and keeps the session open', async () => {
      const session = await newSession();
      const response = await page(session.url, { cardNumber: '4000 0000 0000 9995' });
      assert.equal(response.status, 402);
      assert.match(await response.text(), /Your card has insufficient funds\./);
      const stored = sim.session(session.id)!;
      assert.equal(stored.status, 'open');
      const intent = sim.paymentIntent(stored.payment_intent as string)!;
      assert.equal(intent.status, 'requires_payment_method');
      assert.equal(
        (intent.last_payment_error as { decline_code: string }).decline_code,
        'insufficient_funds',
      );
      await sim.settled();
      assert.ok(
        hooks.received.some((r) => (r.json as { type: string }).type === 'payment_intent.payment_failed'),
      );
    });

    it('pays with 4242…, completes the session and redirects (303) to success_url', async () => {
      const session = await newSession();
      const response = await page(session.url, { cardNumber: '4242424242424242' });
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), `https://shop.example/ok?s=${session.id}`);
      assert.equal(sim.session(session.id)!.status, 'complete');
      assert.equal(sim.session(session.id)!.payment_status, 'paid');
      assert.match(await (await page(session.url)).text(), /no longer available/);
    });

    it('asks for 3D Secure with 4000 0025 0000 3155, then pays once it is completed', async () => {
      const session = await newSession();
      const challenge = await page(session.url, { cardNumber: '4000002500003155' });
      assert.equal(challenge.status, 303);
      const location = challenge.headers.get('location')!;
      assert.match(location, /\/authenticate\?card=/);
      assert.match(await (await page(location)).text(), /Complete authentication/);
      const done = await page(location, { outcome: 'complete', card: '4000002500003155' });
      assert.equal(done.status, 303);
      assert.equal(sim.session(session.id)!.status, 'complete');
    });
  });

  describe('webhooks', () => {
    const types = () => hooks.received.map((r) => (r.json as { type: string }).type);
    const verify = (index: number) =>
      Stripe.webhooks.constructEvent(
        hooks.received[index].body,
        hooks.received[index].headers['stripe-signature'] as string,
        sim.webhookSecret,
      );

    it('signs each event as Stripe does', async () => {
      const session = await newSession();
      sim.pay(session.id);
      await sim.settled();
      assert.ok(types().includes('checkout.session.completed'), types().join());
      hooks.received.forEach((_, i) =>
        assert.equal(verify(i).id, (hooks.received[i].json as { id: string }).id),
      );
      assert.match(String(hooks.received[0].headers['stripe-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    });

    it('holds events, then sends them reversed and duplicated', async () => {
      sim.holdWebhooks();
      const session = await newSession();
      sim.pay(session.id);
      await sim.settled();
      assert.equal(hooks.received.length, 0);
      const sent = await sim.releaseWebhooks({ reverse: true, duplicate: true });
      const eventTypes = sent.filter((_, i) => i % 2 === 0).map((d) => d.type);
      assert.equal(eventTypes[0], 'checkout.session.completed');
      assert.equal(eventTypes.at(-1), 'payment_intent.created');
      assert.equal(sent[0].eventId, sent[1].eventId, 'each event is sent twice');
      assert.equal(hooks.received.length, sent.length);
    });

    it('replays an event with the same id, newly signed', async () => {
      const event = sim.events.at(-1)!;
      const delivery = await sim.replayEvent(event.id);
      assert.equal(delivery.status, 200);
      assert.equal((hooks.received.at(-1)!.json as { id: string }).id, event.id);
      assert.equal(verify(hooks.received.length - 1).id, event.id);
    });

    it('sends forged events that do not verify', async () => {
      await sim.sendForgedEvent({
        type: 'payment_intent.succeeded',
        object: { id: 'pi_forged', object: 'payment_intent' },
      });
      assert.throws(() => verify(hooks.received.length - 1), Stripe.errors.StripeSignatureVerificationError);
      await sim.replayEvent(sim.events.at(-1)!.id, { timestamp: Math.floor(Date.now() / 1000) - 600 });
      assert.throws(() => verify(hooks.received.length - 1), /Timestamp outside the tolerance zone/);
    });

    it('delays events', async () => {
      sim.webhookDelayMs = 300;
      try {
        const session = await newSession();
        sim.pay(session.id);
        assert.equal(hooks.received.length, 0);
        await sim.settled();
        assert.ok(hooks.received.length > 0);
      } finally {
        sim.webhookDelayMs = 0;
      }
    });
  });
});
