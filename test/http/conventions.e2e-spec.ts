import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { BodyReadingInterceptor } from '../../src/common/http/body-reading.interceptor';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

const JSON_TYPE = /^application\/json/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** contract §1 and §2: HTTP conventions of the transaction routes. */
describe('HTTP conventions', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  describe('trailing slash', () => {
    it('create answers with and without it, never redirecting', async () => {
      for (const path of ['/b/checkout/v1/pymt-txn/', '/b/checkout/v1/pymt-txn']) {
        const res = await t.http().post(path).set('Authorization', s.apiKey).send(transactionBody());
        assert.equal(res.status, 201, path);
      }
    });
    it('retrieve and update answer with and without it, and with a query string', async () => {
      const created = await createTransaction(t, s);
      const id = created.session_id as string;
      for (const path of [
        `${TXN_PATH}${id}/`,
        `${TXN_PATH}${id}`,
        `${TXN_PATH}${id}/?x=1`,
        `${TXN_PATH}${id}?x=1`,
      ]) {
        const got = await t.http().get(path);
        assert.equal(got.status, 200, path);
        assert.equal(got.body.session_id, id);
        const vendor = `v${path.length}${path.endsWith('/') ? 's' : ''}`;
        const patched = await t
          .http()
          .patch(path)
          .set('Authorization', s.apiKey)
          .send({ vendor_name: vendor });
        assert.equal(patched.status, 200, path);
        assert.equal(patched.body.vendor_name, vendor);
      }
    });
    it('an unknown route answers 404 JSON either way', async () => {
      for (const path of [
        '/b/checkout/v1/nope/',
        '/b/checkout/v1/nope',
        '/',
        '/b/checkout/v1/pymt-txn/a/b/',
      ]) {
        const res = await t.http().get(path);
        assert.equal(res.status, 404, path);
        assert.match(String(res.headers['content-type']), JSON_TYPE);
        assert.deepEqual(res.body, { detail: 'Not found.' });
      }
      const wrongMethod = await t
        .http()
        .delete(txnPath('0'.repeat(40)))
        .set('Authorization', s.apiKey);
      assert.equal(wrongMethod.status, 404);
      assert.deepEqual(wrongMethod.body, { detail: 'Not found.' });
    });
  });

  describe('media types', () => {
    it('refuses text/plain with 415 and the exact body, on create and update', async () => {
      const created = await createTransaction(t, s);
      for (const req of [
        t.http().post(TXN_PATH),
        t.http().patch(txnPath(created.session_id)),
        t.http().post(TXN_PATH.slice(0, -1)),
      ]) {
        const res = await req
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'text/plain')
          .send('type=e_commerce');
        assert.equal(res.status, 415);
        assert.match(String(res.headers['content-type']), JSON_TYPE);
        assert.deepEqual(res.body, { detail: 'Unsupported media type "text/plain" in request.' });
      }
    });
    it('names any other refused media type', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('Content-Type', 'application/xml; charset=utf-8')
        .send('<txn/>');
      assert.equal(res.status, 415);
      assert.deepEqual(res.body, { detail: 'Unsupported media type "application/xml" in request.' });
    });
    it('accepts JSON with a charset parameter', async () => {
      await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify(transactionBody()))
        .expect(201);
    });
  });

  describe('which routes read a body', () => {
    it('every POST, PUT, PATCH and DELETE route reads it first; no GET route has the reader', () => {
      const methods: Record<number, string> = {
        [RequestMethod.GET]: 'GET',
        [RequestMethod.POST]: 'POST',
        [RequestMethod.PUT]: 'PUT',
        [RequestMethod.PATCH]: 'PATCH',
        [RequestMethod.DELETE]: 'DELETE',
      };
      const seen: Record<string, number> = {};
      for (const moduleRef of t.app.get(ModulesContainer).values()) {
        for (const controller of moduleRef.controllers.values()) {
          const prototype = (controller.metatype as { prototype: object }).prototype;
          for (const name of Object.getOwnPropertyNames(prototype)) {
            const handler = (prototype as Record<string, unknown>)[name];
            if (typeof handler !== 'function') continue;
            const method = Reflect.getMetadata(METHOD_METADATA, handler) as number | undefined;
            if (method === undefined) continue;
            const kind = methods[method];
            assert.ok(kind, `${controller.name}.${name}: an HTTP method this test does not know`);
            const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[]) ?? [];
            const label = `${kind} ${controller.name}.${name}`;
            if (kind === 'GET') assert.ok(!interceptors.includes(BodyReadingInterceptor), label);
            else assert.equal(interceptors[0], BodyReadingInterceptor, label);
            seen[kind] = (seen[kind] ?? 0) + 1;
          }
        }
      }
      for (const kind of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) assert.ok(seen[kind] > 0, kind);
    });
  });

  describe('JSON bodies', () => {
    it('answers malformed JSON with 400 {"detail": ...}', async () => {
      for (const text of ['{"type": ', '{type: "e_commerce"}', "{'a': 1}", '{"a": 1}x', '[1,]']) {
        const res = await t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(text);
        assert.equal(res.status, 400, text);
        assert.match(String(res.headers['content-type']), JSON_TYPE);
        assert.deepEqual(Object.keys(res.body as object), ['detail'], text);
        assert.match(res.body.detail as string, /^JSON parse error/);
      }
    });
    it('accepts a body of exactly 1 MB and answers 413 JSON one byte past it', async () => {
      const sized = (bytes: number) => {
        const body = { ...transactionBody(), padding: '' };
        body.padding = 'x'.repeat(bytes - JSON.stringify(body).length);
        const text = JSON.stringify(body);
        assert.equal(Buffer.byteLength(text), bytes);
        return text;
      };
      const send = (text: string) =>
        t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(text);
      assert.equal((await send(sized(1024 * 1024))).status, 201);
      const res = await send(sized(1024 * 1024 + 1));
      assert.equal(res.status, 413);
      assert.match(String(res.headers['content-type']), JSON_TYPE);
      assert.deepEqual(res.body, { detail: 'Request body is too large.' });
    });
    it('reads only the top-level amount as decimal text; numbers inside extra stay numbers', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('Content-Type', 'application/json')
        .send(
          '{"type":"e_commerce","amount":12.50,"currency_code":"USD","pg_codes":["sandbox"],' +
            '"extra":{"amount":12.50,"items":[{"amount":1.0,"qty":2}]}}',
        );
      assert.equal(res.status, 201);
      assert.equal(res.body.amount, '12.50');
      assert.deepEqual(res.body.extra, { amount: 12.5, items: [{ amount: 1, qty: 2 }] });
    });
    it('refuses an escaped lone surrogate, accepts an escaped pair', async () => {
      const send = (name: string) =>
        t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(`{"type":"e_commerce","amount":"1","currency_code":"KWD","pg_codes":["sandbox"],${name}}`);
      const pair = await send('"customer_first_name":"\\ud83d\\ude00"');
      assert.equal(pair.status, 201);
      assert.equal(pair.body.customer_first_name, '😀');
      for (const part of [
        '"customer_first_name":"a\\ud800b"',
        '"order_no":"\\udfff"',
        '"extra":{"\\ud800":1}',
        '"extra":{"k":["\\udc00"]}',
      ]) {
        const res = await send(part);
        assert.equal(res.status, 400, part);
        assert.match(res.body.detail as string, /^JSON parse error/, part);
      }
    });
    it('refuses a lone surrogate sent unescaped in a UTF-16 body, accepts a pair', async () => {
      // UTF-16 can carry a lone surrogate as raw code units, with no `\u` escape in the text.
      const send = async (name: string) => {
        const res = await fetch(new URL(TXN_PATH, t.url), {
          method: 'POST',
          headers: { Authorization: s.apiKey, 'Content-Type': 'application/json; charset=utf-16le' },
          body: Buffer.from(
            `{"type":"e_commerce","amount":"1","currency_code":"KWD","pg_codes":["sandbox"],"customer_first_name":"${name}"}`,
            'utf16le',
          ),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const pair = await send('a\ud83d\ude00');
      assert.equal(pair.status, 201, JSON.stringify(pair.body));
      assert.equal(pair.body.customer_first_name, 'a😀');
      const lone = await send('a\ud800b');
      assert.equal(lone.status, 400, JSON.stringify(lone.body));
      assert.match(lone.body.detail as string, /^JSON parse error/);
    });
    it('keeps a __proto__ key an ordinary, ignored key', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('Content-Type', 'application/json')
        .send(
          '{"__proto__": {"type": "e_commerce", "amount": "1", "currency_code": "KWD", "pg_codes": ["sandbox"]}}',
        );
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body as object).sort(), [
        'amount',
        'currency_code',
        'pg_codes',
        'type',
      ]);
    });
    it('refuses a body that is not an object', async () => {
      for (const [text, kind] of [
        ['[1, 2]', 'list'],
        ['"text"', 'str'],
        ['42', 'int'],
        ['true', 'bool'],
        ['null', 'NoneType'],
      ]) {
        const res = await t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(text);
        assert.equal(res.status, 400, text);
        assert.deepEqual(res.body, {
          non_field_errors: [`Invalid data. Expected a dictionary, but got ${kind}.`],
        });
      }
    });
    it('refuses an attachment sent in a JSON body', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .send(transactionBody({ attachment: 'JVBERi0xLjQ=' }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { attachment: ['Attachments can only be sent as multipart/form-data.'] });
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a sane id on success and on errors', async () => {
      const ok = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('X-Request-Id', 'merchant-req.42:a_b')
        .send(transactionBody());
      assert.equal(ok.status, 201);
      assert.equal(ok.headers['x-request-id'], 'merchant-req.42:a_b');
      for (const req of [
        t.http().get('/nope'),
        t.http().post(TXN_PATH).set('Content-Type', 'text/plain').send('x'),
        t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send('{'),
        t.http().post(TXN_PATH).send(transactionBody()),
      ]) {
        const res = await req.set('X-Request-Id', 'abc-123');
        assert.ok(res.status >= 400);
        assert.equal(res.headers['x-request-id'], 'abc-123');
      }
    });
    it('generates one when none or an insane one is sent', async () => {
      const none = await t.http().get(txnPath('0'.repeat(40)));
      assert.match(String(none.headers['x-request-id']), UUID);
      for (const insane of ['a'.repeat(129), 'has space', '<script>', 'semi;colon', '']) {
        const res = await t
          .http()
          .get(txnPath('0'.repeat(40)))
          .set('X-Request-Id', insane);
        assert.match(String(res.headers['x-request-id']), UUID, insane);
      }
      const longest = 'a'.repeat(128);
      const res = await t
        .http()
        .get(txnPath('0'.repeat(40)))
        .set('X-Request-Id', longest);
      assert.equal(res.headers['x-request-id'], longest);
    });
    it('gives each request its own generated id', async () => {
      const a = await t.http().get('/nope');
      const b = await t.http().get('/nope');
      assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
    });
  });

  describe('bad input never yields a 5xx', () => {
    const TEXT_FIELDS = [
      'type',
      'amount',
      'currency_code',
      'mode',
      'webhook_url',
      'redirect_url',
      'customer_id',
      'customer_first_name',
      'customer_last_name',
      'customer_email',
      'customer_phone',
      'order_no',
      'vendor_name',
      'expiration_time',
      'product_type',
      'language',
    ];
    const OTHER_FIELDS = [
      'pg_codes',
      'email_recipients',
      'billing_address',
      'notifications',
      'extra',
      'shortify_attachment_url',
      'shortify_checkout_url',
    ];
    const WRONG: unknown[] = [7, 1.5, true, { a: { b: null } }, [], ['x'], [null]];
    const ODD: unknown[] = [false, { a: { b: null } }, [[]], [{}], '', 'x'.repeat(5000), '\u0000😀', null];

    it('create: a wrong kind of value under any text field is a 400 under that field', async () => {
      for (const field of TEXT_FIELDS) {
        // A JSON number is a valid amount.
        const values = WRONG.filter((value) => field !== 'amount' || typeof value !== 'number');
        const responses = await Promise.all(
          values.map((value) =>
            t
              .http()
              .post(TXN_PATH)
              .set('Authorization', s.apiKey)
              .send(transactionBody({ [field]: value })),
          ),
        );
        responses.forEach((res, i) => {
          const label = `${field}=${JSON.stringify(values[i])}`;
          assert.equal(res.status, 400, label);
          assert.ok(field in (res.body as object), `${label}: ${JSON.stringify(res.body)}`);
        });
      }
    });

    it('create and update: odd values in every field answer 201/200 or a 400 JSON body', async () => {
      // One transaction per value, so the updates of one field can run side by side.
      const targets = await Promise.all(ODD.map(() => createTransaction(t, s)));
      for (const field of [...TEXT_FIELDS, ...OTHER_FIELDS]) {
        const [creates, updates] = await Promise.all([
          Promise.all(
            ODD.map((value) =>
              t
                .http()
                .post(TXN_PATH)
                .set('Authorization', s.apiKey)
                .send(transactionBody({ [field]: value })),
            ),
          ),
          Promise.all(
            ODD.map((value, i) =>
              t
                .http()
                .patch(txnPath(targets[i].session_id))
                .set('Authorization', s.apiKey)
                .send({ [field]: value }),
            ),
          ),
        ]);
        ODD.forEach((value, i) => {
          const label = `${field}=${JSON.stringify(value)?.slice(0, 40)}`;
          assert.ok([201, 400].includes(creates[i].status), `create ${label}: ${creates[i].status}`);
          assert.match(String(creates[i].headers['content-type']), JSON_TYPE, label);
          assert.ok([200, 400].includes(updates[i].status), `update ${label}: ${updates[i].status}`);
          if (updates[i].status === 400) assert.ok(field in (updates[i].body as object), label);
        });
      }
    });

    it('nested nulls and wrong kinds inside objects and lists are field errors', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .send(
          transactionBody({
            billing_address: { line1: null, city: [], state: {}, country: 7, postal_code: null },
            notifications: { email: [null], sms: null },
            email_recipients: [null, 5],
            pg_codes: [null],
            extra: { a: null, b: [null, { c: null }] },
          }),
        );
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        pg_codes: ['Not a valid string.'],
        billing_address: {
          line1: ['This field may not be null.'],
          city: ['Not a valid string.'],
          state: ['Not a valid string.'],
          country: ['Not a valid string.'],
          postal_code: ['This field may not be null.'],
        },
        notifications: { email: ['"null" is not a valid choice.'] },
        email_recipients: ['Not a valid string.'],
      });
    });

    it('deeply nested and odd JSON documents are refused or accepted, never a 5xx', async () => {
      for (const text of [
        `{"extra": ${'['.repeat(10000)}${']'.repeat(10000)}}`,
        `{"extra": ${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`,
        '{"amount": 1e400, "type": "e_commerce", "currency_code": "KWD", "pg_codes": ["sandbox"]}',
        '{"amount": 123456789012345678901234567890, "type": "e_commerce", "currency_code": "KWD", "pg_codes": ["sandbox"]}',
        '{"amount": "1", "amount": "2"}',
        '{"__proto__": {"type": "e_commerce"}, "constructor": {"prototype": {"x": 1}}}',
        '{"type": "e_commerce", "amount": "1", "currency_code": "KWD", "pg_codes": ["sandbox"], "extra": {"n": 1e400}}',
      ]) {
        const res = await t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(text);
        assert.ok(res.status < 500, `${text.slice(0, 40)}: ${res.status}`);
        assert.match(String(res.headers['content-type']), JSON_TYPE);
      }
    });
  });
});
