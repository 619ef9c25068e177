import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, txnPath } from './helpers';

const helperPay = (sessionId: string) => `/b/checkout/v1/test-helpers/pymt-txn/${sessionId}/pay/`;

/** Reads the QR code in a PNG back to its text. */
function decodeQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** contract §16: checkout_page_url, settled_pg_code and qr_code_url in the representation. */
describe('representation additions of contract §16', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const pay = (sessionId: string, card: string) =>
    t.http().post(helperPay(sessionId)).set('Authorization', s.apiKey).send({ card }).expect(200);

  it('checkout_page_url is the hosted checkout page itself', async () => {
    const tx = await createTransaction(t, s);
    assert.equal(tx.checkout_page_url, `${t.url}/b/checkout/txn/${tx.session_id}`);
    const page = await t
      .http()
      .get(new URL(String(tx.checkout_page_url)).pathname)
      .expect(200);
    assert.match(page.text, /<h1[^>]*>Checkout<\/h1>/);
  });

  it('settled_pg_code names the gateway once it took the payment, and is empty before', async () => {
    const tx = await createTransaction(t, s);
    assert.equal(tx.settled_pg_code, '');
    assert.equal((await pay(tx.session_id, TEST_CARDS.declined)).body.settled_pg_code, '');
    assert.equal((await pay(tx.session_id, TEST_CARDS.success)).body.settled_pg_code, 'sandbox');
    const read = await t.http().get(txnPath(tx.session_id)).expect(200);
    assert.equal(read.body.settled_pg_code, 'sandbox');
  });

  it('qr_code_url: empty unless asked for; a PNG of checkout_url at an unguessable address', async () => {
    assert.equal((await createTransaction(t, s)).qr_code_url, '');
    const tx = await createTransaction(t, s, { generate_qr_code: true });
    assert.equal(Object.hasOwn(tx, 'generate_qr_code'), false, 'write-only');
    const url = String(tx.qr_code_url);
    assert.match(url, new RegExp(`^${t.url}/b/checkout/qr/[A-Za-z0-9_-]{32}\\.png$`));
    const png = await t
      .http()
      .get(new URL(url).pathname)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200)
      .expect('Content-Type', 'image/png');
    assert.equal(decodeQr(png.body as Buffer), tx.checkout_url);

    // Asked for again: a new address; the old one is gone.
    const again = await t
      .http()
      .patch(txnPath(String(tx.session_id)))
      .set('Authorization', s.apiKey)
      .send({ generate_qr_code: true })
      .expect(200);
    assert.notEqual(again.body.qr_code_url, url);
    await t.http().get(new URL(url).pathname).expect(404);
    // An update without the flag keeps it.
    const kept = await t
      .http()
      .patch(txnPath(String(tx.session_id)))
      .set('Authorization', s.apiKey)
      .send({ vendor_name: 'x' })
      .expect(200);
    assert.equal(kept.body.qr_code_url, again.body.qr_code_url);
    await t.http().get('/b/checkout/qr/not-a-token.png').expect(404);
  });

  it('refuses a generate_qr_code that is not a boolean', async () => {
    const res = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send({
        type: 'e_commerce',
        amount: '1',
        currency_code: 'KWD',
        pg_codes: ['sandbox'],
        generate_qr_code: 'maybe',
      })
      .expect(400);
    assert.deepEqual(res.body, { generate_qr_code: ['Must be a valid boolean.'] });
  });
});
