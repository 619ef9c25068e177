import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createErrors, createTransaction, postTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

/** Keys that name Object.prototype members: data to keep, never a way into the prototype. */
const PROTOTYPE_KEYS = [
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'propertyIsEnumerable',
];

/** Writes raw bytes to the server and reads everything it answers until it closes. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
  });
}

/** contract §17 "Hostile input": bad input that used to yield a 5xx, or be silently changed or dropped. */
describe('hostile input', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('keeps and echoes extra keys named like Object.prototype members, through create, retrieve and update', async () => {
    const extra: Record<string, unknown> = {};
    PROTOTYPE_KEYS.forEach((key, i) =>
      Object.defineProperty(extra, key, { value: `v${i}`, enumerable: true }),
    );
    extra.nested = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}');
    const raw = JSON.stringify(transactionBody({ extra }));
    const created = await postTransaction(t, s, JSON.parse(raw));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const expected = JSON.parse(JSON.stringify(extra)) as unknown;
    assert.deepEqual(created.body.extra, expected);
    const got = await t
      .http()
      .get(txnPath(created.body.session_id as string))
      .expect(200);
    assert.deepEqual(got.body.extra, expected);
    assert.deepEqual(Object.keys(got.body.extra as object), [...PROTOTYPE_KEYS, 'nested']);
    const updated = await t
      .http()
      .patch(txnPath(created.body.session_id as string))
      .set('Authorization', s.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ extra: { constructor: 'again', toString: 'x' } }))
      .expect(200);
    assert.deepEqual(updated.body.extra, { constructor: 'again', toString: 'x' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
  });

  it('keeps such keys in a form body too', async () => {
    const res = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.apiKey)
      .type('form')
      .send({
        ...transactionBody(),
        pg_codes: 'sandbox',
        extra: '{"constructor": 1, "__proto__": 2, "valueOf": 3}',
      })
      .expect(201);
    assert.deepEqual(res.body.extra, JSON.parse('{"constructor": 1, "__proto__": 2, "valueOf": 3}'));
  });

  it('refuses prototype-named keys in notifications with 400, writing nothing', async () => {
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const body = JSON.parse(
        JSON.stringify(transactionBody({ order_no: `proto-${key}` })).replace(
          /}$/,
          `, "notifications": {"${key}": ["email"]}}`,
        ),
      ) as Record<string, unknown>;
      const res = await postTransaction(t, s, body);
      assert.equal(res.status, 400, `${key}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(Object.keys(res.body as object), ['notifications'], key);
    }
  });

  it('refuses an unknown notifications channel with 400 instead of dropping it', async () => {
    const errors = await createErrors(t, s, {
      notifications: { email: ['paid'], fax: ['paid'] },
      customer_email: 'a@example.com',
    });
    assert.deepEqual(errors, {
      notifications: { fax: ['Unknown notification channel: use "email" or "sms".'] },
    });
  });

  it('refuses a constructor entry in email_recipients as an e-mail address like any other text', async () => {
    const res = await postTransaction(
      t,
      s,
      JSON.parse(
        JSON.stringify(transactionBody()).replace(/}$/, ', "email_recipients": {"constructor": "a@b.co"}}'),
      ),
    );
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body as object), ['email_recipients']);
  });

  it('answers a malformed HTTP request with a JSON 400 carrying X-Request-Id, and closes', async () => {
    const answer = await rawExchange(t.url, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(head, /\r\nContent-Type: application\/json/i);
    assert.match(head, /\r\nX-Request-Id: [0-9a-f-]{36}/i);
    assert.match(head, /\r\nConnection: close/i);
    assert.deepEqual(JSON.parse(body), { detail: 'Malformed HTTP request.' });
    // and the server still answers properly formed requests
    await t
      .http()
      .get(txnPath('0'.repeat(40)))
      .expect(404);
  });

  it('refuses invalid UTF-8 in a JSON or form body with 400 instead of storing U+FFFD', async () => {
    const json = Buffer.concat([
      Buffer.from(JSON.stringify(transactionBody()).replace(/}$/, ', "vendor_name": "caf')),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const post = async (contentType: string, body: Buffer) => {
      const res = await fetch(`${t.url}${TXN_PATH}`, {
        method: 'POST',
        headers: { Authorization: s.apiKey, 'Content-Type': contentType },
        body,
      });
      return { status: res.status, body: await res.json() };
    };
    assert.deepEqual(await post('application/json', json), {
      status: 400,
      body: { detail: 'The request body is not valid UTF-8.' },
    });
    const form = Buffer.concat([
      Buffer.from('type=e_commerce&amount=1&currency_code=KWD&pg_codes=sandbox&vendor_name=caf'),
      Buffer.from([0xff]),
    ]);
    assert.deepEqual(await post('application/x-www-form-urlencoded', form), {
      status: 400,
      body: { detail: 'The request body is not valid UTF-8.' },
    });
    assert.deepEqual(await post('application/json; charset=utf-8', json), {
      status: 400,
      body: { detail: 'The request body is not valid UTF-8.' },
    });
    // valid multi-byte text is fine
    const ok = await createTransaction(t, s, { vendor_name: 'café ☕ 𝄞' });
    assert.equal(ok.vendor_name, 'café ☕ 𝄞');
  });

  it('refuses an empty expiration_time in JSON under its field (a form\'s empty input means "not set")', async () => {
    assert.deepEqual(await createErrors(t, s, { expiration_time: '' }), {
      expiration_time: ['Duration has wrong format. Use one of these formats instead: HH:MM:SS, D HH:MM:SS.'],
    });
    const form = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.apiKey)
      .type('form')
      .send({ ...transactionBody(), pg_codes: 'sandbox', expiration_time: '' })
      .expect(201);
    assert.equal(form.body.expiration_time, '01:00:00');
  });

  it('puts an ETag on representations only: errors carry none', async () => {
    const created = await createTransaction(t, s);
    const got = await t
      .http()
      .get(txnPath(created.session_id as string))
      .expect(200);
    assert.match(String(got.headers.etag), /^"\d+"$/);
    const errors = [
      await t.http().get(txnPath('0'.repeat(40))),
      await postTransaction(t, s, transactionBody({ amount: 'x' })),
      await t.http().post(TXN_PATH).send(transactionBody()),
    ];
    for (const res of errors) {
      assert.ok(res.status >= 400, String(res.status));
      assert.equal(res.headers.etag, undefined, `${res.status} ${JSON.stringify(res.body)}`);
    }
  });
});
