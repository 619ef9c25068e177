import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../../../gateways/gateway.entity';
import {
  type CompleteInput,
  type InquiryInput,
  ProviderCallFailed,
  type StartInput,
  UnverifiedNotification,
} from '../../adapters/gateway-adapter';
import { encryptTrandata } from '../../providers/knet/knet-crypto';
import { KnetDriver } from './knet-driver';

const gateway = { code: 'knet', pg: 'knet', type: 'sandbox' } as Gateway;
const settings = {
  tranportal_id: '600001',
  tranportal_password: 'pass600001',
  resource_key: 'KNETRESOURCEKEY1',
  timeout_ms: 1000,
};
const BASE = 'https://pay.example.com/b/checkout/v1/gateways/knet';

function start(overrides: Partial<StartInput> = {}): StartInput {
  return {
    gateway,
    settings,
    referenceNumber: 'A1B2C3D4E5F60718293',
    amount: '86.5',
    currencyCode: 'KWD',
    operation: 'purchase',
    description: 'Order 1',
    returnUrl: `${BASE}/return/?ref=A1B2C3D4E5F60718293`,
    cancelUrl: `${BASE}/return/?ref=A1B2C3D4E5F60718293&cancel=1`,
    notifyUrl: `${BASE}/notify/`,
    ...overrides,
  };
}

/**
 * What the `knet` driver refuses before a customer is sent to KNET (contract §20;
 * docs/gateways/knet.md "The driver"), and what it keeps of a start. The flows through the app are
 * test/payments/knet-payments.e2e-spec.ts.
 */
describe('KnetDriver', () => {
  const driver = new KnetDriver();

  it('serves gateways of pg knet only', () => {
    assert.equal(driver.serves(gateway), true);
    assert.equal(driver.serves({ ...gateway, pg: 'stripe' }), false);
  });

  it('starts on KNET’s test host of a sandbox gateway, keeping no URL and no secret', async () => {
    const started = await driver.start(start());
    assert.equal(started.destination.kind, 'redirect');
    const url = new URL(started.destination.kind === 'redirect' ? started.destination.url : '');
    assert.equal(`${url.origin}${url.pathname}`, 'https://www.kpaytest.com.kw/kpg/PaymentHTTP.htm');
    assert.equal(url.searchParams.get('errorURL'), `${BASE}/return/`);
    assert.equal(url.searchParams.get('responseURL'), `${BASE}/notify/`);
    assert.deepEqual(Object.keys(started.provider).sort(), [
      'amount',
      'payable_until',
      'started_at',
      'track_id',
    ]);
    assert.equal(started.provider.amount, '86.500');
    assert.equal(url.searchParams.get('responseURL'), `${BASE}/notify/`);
    const kept = JSON.stringify(started.provider);
    for (const secret of [
      settings.tranportal_password,
      settings.resource_key,
      url.searchParams.get('trandata')!,
    ])
      assert.ok(!kept.includes(secret));
  });

  it('refuses what KNET cannot take: another currency, authorize, more than 3 decimals', async () => {
    await assert.rejects(driver.start(start({ currencyCode: 'USD' })), /only KWD/);
    await assert.rejects(driver.start(start({ operation: 'authorize' })), /only takes purchases/);
    await assert.rejects(driver.start(start({ amount: '1.0005' })), /at most 3 decimals/);
  });

  it('refuses a track id KNET could not take back as transid: over 19 characters (K-064 §3.5.4)', async () => {
    await assert.rejects(driver.start(start({ referenceNumber: 'A1B2C3D4E5F60718293A' })), /1 to 19/);
  });

  it('payable_until: KNET’s page limit, page_timeout_minutes (default 30) after the start', async () => {
    for (const [minutes, expected] of [
      [undefined, 30],
      [45, 45],
    ] as const) {
      const started = await driver.start(
        start({
          settings: minutes === undefined ? settings : { ...settings, page_timeout_minutes: minutes },
        }),
      );
      const { payable_until: until, started_at: at } = started.provider;
      assert.equal(Date.parse(until) - Date.parse(at), expected * 60_000);
    }
  });

  it('needs https for the URLs KNET calls, except on loopback hosts', async () => {
    const http = (host: string) => ({
      returnUrl: `http://${host}/b/checkout/v1/gateways/knet/return/?ref=X`,
      notifyUrl: `http://${host}/b/checkout/v1/gateways/knet/notify/`,
    });
    await assert.rejects(driver.start(start(http('pay.example.com'))), /https/);
    for (const host of ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000'])
      assert.equal((await driver.start(start(http(host)))).destination.kind, 'redirect');
  });

  it('a resource key that is not 16 characters fails the start, without the key in the message', async () => {
    const bad = { ...settings, resource_key: 'SHORTKEY' };
    await assert.rejects(driver.start(start({ settings: bad })), (error: Error) => {
      assert.ok(!error.message.includes('SHORTKEY'));
      return true;
    });
  });

  it('reads the track id of a return, and nothing that is not one', async () => {
    const call = { gateway, settings };
    assert.equal(await driver.returnReference(call, { trackid: 'A1B2C3' }), 'A1B2C3');
    assert.equal(await driver.returnReference(call, { trackid: 'A1/../x' }), null);
    assert.equal(await driver.returnReference(call, { Error: 'IPAY0100006' }), null);
  });

  it('cannot save cards, capture or void', async () => {
    await assert.rejects(driver.pay(), /cannot save cards/);
    for (const operation of ['capture', 'void'] as const) {
      const outcome = await driver.followUp({
        gateway,
        settings,
        operation,
        referenceNumber: 'A1B2C3',
        amount: '1.000',
        currencyCode: 'KWD',
      });
      assert.deepEqual(outcome, { result: 'failed', message: `KNET cannot ${operation}.` });
    }
  });
});

/**
 * What the driver makes of KNET's answers (contract §20.1; docs/gateways/knet.md "Inquiry"), against
 * a tranPipe that answers what each case sets: KNET's record decides, `INITIATED` is no decline, an
 * answer not known to be final and KNET's errors are ProviderCallFailed, the page limit ends an open
 * page, the errorURL link leaves it, the request's deadline bounds the call.
 */
describe('KnetDriver reading KNET', () => {
  const driver = new KnetDriver();
  let server: Server;
  let tranPipe = '';
  /** The next answer: status and body (XML), or null for no answer at all. */
  let answer: { status: number; body: string } | null = { status: 200, body: '' };

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (answer === null) return; // never answers
        res.writeHead(answer.status, { 'Content-Type': 'text/xml' });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tranPipe = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kpg/tranPipe.htm`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const reference = 'A1B2C3D4E5F60718293';
  const result = (value: string) =>
    `<result>${value}</result><auth></auth><ref></ref><avr>N</avr><postdate></postdate><tranid></tranid>` +
    `<trackid>${reference}</trackid><payid>100201719515482162</payid><udf5>TrackID</udf5><amt>86.500</amt>`;
  const error = (code: string) =>
    `<error_code_tag>${code}</error_code_tag><result>!ERROR!-${code}-Some text.</result>`;

  /** An inquiry of an attempt whose page opened `ageMs` ago (its limit: 30 minutes). */
  function inquiry(ageMs = 0, more: Partial<InquiryInput> = {}): InquiryInput {
    const at = Date.now() - ageMs;
    return {
      gateway,
      settings: { ...settings, inquiry_url: tranPipe },
      referenceNumber: reference,
      provider: {
        track_id: reference,
        amount: '86.500',
        started_at: new Date(at).toISOString(),
        payable_until: new Date(at + 30 * 60_000).toISOString(),
      },
      ...more,
    };
  }
  const LATE = 31 * 60_000;

  it('INITIATED (in either form) and an unknown track: open while the page may pay, nothing after', async () => {
    for (const body of [result('INITIATED'), result('FAILURE(INITIATED)'), error('IPAY0100263')]) {
      answer = { status: 200, body };
      assert.equal(await driver.inquire(inquiry()), 'open', body);
      assert.equal(await driver.inquire(inquiry(LATE)), null, body);
      assert.equal(await driver.abandon(inquiry()), 'open', body);
    }
  });

  it('SUCCESS is paid, with KNET’s Payment ID; CANCELED is nothing; documented failures are declines', async () => {
    answer = { status: 200, body: result('SUCCESS') };
    const paid = await driver.inquire(inquiry());
    assert.ok(paid && paid !== 'open');
    assert.equal(paid.result, 'success');
    assert.equal(paid.provider?.payment_id, '100201719515482162');
    answer = { status: 200, body: result('FAILURE(CANCELED)') };
    assert.equal(await driver.inquire(inquiry()), null);
    for (const state of [
      'NOT CAPTURED',
      'FAILURE(NOT CAPTURED)',
      'HOST TIMEOUT',
      'SUSPECTED',
      'FAILURE(REVERSED)',
    ]) {
      answer = { status: 200, body: result(state) };
      const declined = await driver.inquire(inquiry());
      assert.ok(declined && declined !== 'open', state);
      assert.equal(declined.result, 'declined', state);
    }
  });

  it('an answer not known to be final is unknown: ProviderCallFailed, never a decline', async () => {
    for (const state of ['PROCESSING', 'FAILURE(PENDING)', '']) {
      answer = { status: 200, body: result(state) };
      await assert.rejects(driver.inquire(inquiry()), (thrown: unknown) => {
        assert.ok(thrown instanceof ProviderCallFailed, String(thrown));
        return true;
      });
    }
  });

  it('KNET’s error answers are ProviderCallFailed: retryable for “try again”, 5xx and silence, not for refusals', async () => {
    const cases: Array<[{ status: number; body: string } | null, number | null, string | null, boolean]> = [
      [{ status: 200, body: error('IPAY0200018') }, null, 'IPAY0200018', true],
      [{ status: 200, body: error('IPAY0100038') }, null, 'IPAY0100038', true],
      [{ status: 200, body: error('IPAY0100015') }, null, 'IPAY0100015', false],
      [{ status: 200, body: error('IPAY0100025') }, null, 'IPAY0100025', false],
      [{ status: 503, body: '<html>down</html>' }, 503, null, true],
      [{ status: 429, body: '' }, 429, null, true],
      [{ status: 403, body: '' }, 403, null, false],
      [null, null, 'timeout', true],
    ];
    for (const [next, status, code, retryable] of cases) {
      answer = next;
      await assert.rejects(
        driver.inquire(inquiry(0, { settings: { ...settings, inquiry_url: tranPipe, timeout_ms: 300 } })),
        (thrown: unknown) => {
          assert.ok(thrown instanceof ProviderCallFailed, String(thrown));
          assert.deepEqual(
            {
              status: thrown.details.status ?? null,
              code: thrown.details.code ?? null,
              retryable: thrown.details.retryable,
            },
            { status, code, retryable },
            JSON.stringify(next),
          );
          assert.ok(!thrown.message.includes(settings.tranportal_password));
          return true;
        },
      );
    }
  });

  it('the errorURL link while the page may pay is left; after the limit KNET’s record decides', async () => {
    const back = (ageMs: number): CompleteInput => ({
      ...inquiry(ageMs),
      provider: inquiry(ageMs).provider ?? null,
      params: { Error: 'IPAY0100040', ErrorText: 'Transaction in progress', trackid: reference },
    });
    answer = { status: 200, body: result('INITIATED') };
    assert.equal(await driver.complete(back(0)), 'left');
    assert.equal(await driver.complete(back(LATE)), null);
    assert.equal(await driver.complete({ ...back(0), params: { trackid: reference } }), 'open');
    answer = { status: 200, body: result('SUCCESS') };
    const paid = await driver.complete(back(0));
    assert.ok(paid && paid !== 'open' && paid !== 'left');
    assert.equal(paid.result, 'success');
  });

  it('an inquiry someone waits on ends by the request’s deadline, whatever timeout_ms says', async () => {
    answer = null;
    const started = Date.now();
    await assert.rejects(
      driver.inquire(
        inquiry(0, {
          settings: { ...settings, inquiry_url: tranPipe, timeout_ms: 5000 },
          deadline: Date.now() + 250,
        }),
      ),
      ProviderCallFailed,
    );
    assert.ok(Date.now() - started < 1500, `gave up after ${Date.now() - started} ms`);
  });
});

describe('KnetDriver reading the result post', () => {
  const driver = new KnetDriver();
  const reference = 'A1B2C3D4E5F60718293';
  const fields = (result: string) =>
    new URLSearchParams({
      paymentid: '100201719515482162',
      result,
      auth: '999554',
      avr: 'N',
      ref: '411857974849',
      tranid: '992989223104118',
      postdate: '0427',
      trackid: reference,
      amt: '86.500',
      authRespCode: '00',
    }).toString();
  const trandata = (result: string) => encryptTrandata(fields(result), settings.resource_key).toUpperCase();
  const notify = (rawBody: string) =>
    driver.notification({ gateway, settings, rawBody, headers: {}, returnUrl: `${BASE}/return/` });

  it('CAPTURED, as a form or as bare ciphertext: ask KNET, keeping the raw post and the Payment ID', async () => {
    const hex = trandata('CAPTURED');
    for (const body of [`paymentid=100201719515482162&trackid=${reference}&trandata=${hex}`, hex]) {
      const notice = await notify(body);
      assert.equal(notice.kind, 'ask');
      assert.ok(notice.kind === 'ask');
      assert.equal(notice.referenceNumber, reference);
      assert.equal(notice.provider?.payment_id, '100201719515482162');
      assert.equal(notice.provider?.result_trandata, hex);
      const post = JSON.parse(notice.provider?.result_post ?? '{}') as Record<string, string>;
      assert.equal(post.result, 'CAPTURED');
      assert.equal(post.trackid, reference);
      assert.deepEqual(notice.reply, {
        contentType: 'text/plain',
        body: `REDIRECT=${BASE}/return/?trackid=${reference}`,
      });
    }
  });

  it('NOT CAPTURED is a final decline, with the raw post; CANCELED is asked, its reply saying so', async () => {
    const declined = await notify(trandata('NOT CAPTURED'));
    assert.ok(declined.kind === 'outcome');
    assert.equal(declined.outcome.result, 'declined');
    assert.equal(declined.outcome.payerMayRetry, undefined);
    assert.equal(JSON.parse(declined.outcome.provider?.result_post ?? '{}').result, 'NOT CAPTURED');
    assert.equal(declined.outcome.provider?.payment_id, '100201719515482162');
    const canceled = await notify(trandata('CANCELED'));
    assert.equal(canceled.kind, 'ask');
    assert.equal(canceled.reply?.body, `REDIRECT=${BASE}/return/?trackid=${reference}&cancel=1`);
  });

  it('what does not decrypt is refused, one way for every reason', async () => {
    for (const body of [
      '',
      'ZZ',
      'trandata=00',
      trandata('CAPTURED').slice(0, -2),
      `trandata=${encryptTrandata(fields('CAPTURED'), 'ANOTHERRESOURCEK')}`,
    ])
      await assert.rejects(notify(body), UnverifiedNotification);
  });
});
