import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { IdempotencyKey } from '../../src/idempotency/idempotency-key.entity';
import { Transaction } from '../../src/transactions/transaction.entity';
import { pdfFile, pngFile } from '../factories/attachment-files';
import { multipartCreate } from '../factories/multipart';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { forceState, TXN_PATH, txnPath } from '../transactions/helpers';

const MISMATCH = { detail: 'This Idempotency-Key was already used with a different request body.' };
const BAD_KEY = { detail: 'Idempotency-Key must be 1 to 255 characters.' };

describe('Idempotency-Key on create and update (contract §11)', () => {
  let t: TestApp;
  let s: Seeded;
  let seq = 0;
  /** A fresh key per test: keys are per credential and route, and the tests share one app. */
  const newKey = () => `key-${++seq}-${Date.now()}`;

  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'other', name: 'Other sandbox' }));
  });
  after(() => t.close());

  const db = () => t.app.get(DataSource);
  const transactions = () => db().getRepository(Transaction).count();
  const keyRows = () => db().getRepository(IdempotencyKey);
  const create = (key: string | null, body: object = transactionBody(), auth = s.apiKey) => {
    const req = t.http().post(TXN_PATH).set('Authorization', auth);
    if (key !== null) void req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const update = (sessionId: string, key: string, body: object, ifMatch?: string) => {
    const req = t.http().patch(txnPath(sessionId)).set('Authorization', s.apiKey).set('Idempotency-Key', key);
    if (ifMatch !== undefined) void req.set('If-Match', ifMatch);
    return req.send(body);
  };

  describe('create', () => {
    it('replays the first response byte for byte, with Idempotent-Replayed, creating nothing new', async () => {
      const key = newKey();
      const before = await transactions();
      const first = await create(key).expect(201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await create(key).expect(201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.match(String(again.headers['content-type']), /^application\/json/);
      assert.equal(await transactions(), before + 1);
    });

    it('treats the same body with its keys in another order, and the path with or without slash, as the same request', async () => {
      const key = newKey();
      const first = await create(key, {
        type: 'e_commerce',
        amount: '86.000',
        currency_code: 'KWD',
        pg_codes: ['sandbox'],
      }).expect(201);
      const again = await t
        .http()
        .post(TXN_PATH.replace(/\/$/, ''))
        .set('Authorization', s.apiKey)
        .set('Idempotency-Key', key)
        .send({ pg_codes: ['sandbox'], currency_code: 'KWD', amount: '86.000', type: 'e_commerce' })
        .expect(201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text);
    });

    it('refuses the same key with another body with 422, creating nothing', async () => {
      const key = newKey();
      await create(key).expect(201);
      const before = await transactions();
      const other = await create(key, transactionBody({ amount: '86.001' })).expect(422);
      assert.deepEqual(other.body, MISMATCH);
      assert.equal(other.headers['idempotent-replayed'], undefined);
      assert.equal(await transactions(), before);
    });

    it('counts the media type as part of the body: the same fields as a form are another request', async () => {
      const key = newKey();
      await create(key).expect(201);
      const form = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('Idempotency-Key', key)
        .type('form')
        .send('type=e_commerce&amount=86.000&currency_code=KWD&pg_codes=sandbox')
        .expect(422);
      assert.deepEqual(form.body, MISMATCH);
    });

    it('keeps keys per credential: another credential with the same key creates its own transaction', async () => {
      const key = newKey();
      const byKey = await create(key).expect(201);
      const byUser = await create(key, transactionBody(), s.merchant).expect(201);
      assert.equal(byUser.headers['idempotent-replayed'], undefined);
      assert.notEqual(byUser.body.session_id, byKey.body.session_id);
      assert.equal(byUser.body.initiator_id, s.merchantId);
      const userAgain = await create(key, transactionBody(), s.merchant).expect(201);
      assert.equal(userAgain.headers['idempotent-replayed'], 'true');
      assert.equal(userAgain.text, byUser.text);
      const keyAgain = await create(key).expect(201);
      assert.equal(keyAgain.text, byKey.text);
    });

    it('accepts a key of 255 characters and refuses one of 256 or an empty one with 400', async () => {
      const longest = 'k'.repeat(254) + String(seq++ % 10);
      const first = await create(longest).expect(201);
      const again = await create(longest).expect(201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text);

      const before = await transactions();
      const tooLong = await create('k'.repeat(256)).expect(400);
      assert.deepEqual(tooLong.body, BAD_KEY);
      const empty = await create('').expect(400);
      assert.deepEqual(empty.body, BAD_KEY);
      assert.equal(await transactions(), before);
    });

    it('tells keys apart by case', async () => {
      const key = `Case-${newKey()}`;
      const upper = await create(key).expect(201);
      const lower = await create(key.toLowerCase()).expect(201);
      assert.equal(lower.headers['idempotent-replayed'], undefined);
      assert.notEqual(lower.body.session_id, upper.body.session_id);
    });

    it('creates twice without a key (the header is what makes a repeat safe)', async () => {
      const before = await transactions();
      await create(null).expect(201);
      await create(null).expect(201);
      assert.equal(await transactions(), before + 2);
    });

    it('does not keep a request refused for its credentials: the key stays unused', async () => {
      const key = newKey();
      await create(key, transactionBody(), 'Api-Key wrongpre.wrong-secret-wrong-secret-wrong-secret').expect(
        401,
      );
      assert.equal(await keyRows().countBy({ key }), 0);
      const first = await create(key).expect(201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
    });

    it('does not keep a validation failure: the key is free for the corrected body', async () => {
      const key = newKey();
      const before = await transactions();
      const invalid = await create(key, transactionBody({ amount: '-1' })).expect(400);
      assert.ok('amount' in invalid.body);
      assert.equal(await keyRows().countBy({ key }), 0);
      const fixed = await create(key).expect(201);
      assert.equal(fixed.headers['idempotent-replayed'], undefined);
      assert.equal(await transactions(), before + 1);
      // Once a body succeeded, the key belongs to it.
      assert.deepEqual((await create(key, transactionBody({ amount: '-1' })).expect(422)).body, MISMATCH);
    });

    it('does not keep a refusal for the gateway permission (403): nothing was written', async () => {
      const key = newKey();
      const refused = await create(key, transactionBody({ pg_codes: ['other'] }), s.merchant).expect(403);
      assert.deepEqual(refused.body, { detail: 'You do not have permission to use gateway code "other".' });
      assert.equal(await keyRows().countBy({ key }), 0);
    });

    it('does not keep a server failure (5xx): the retry runs once the fault is gone', async () => {
      const key = newKey();
      await db().query('ALTER TABLE transactions RENAME TO transactions_away');
      let failed;
      try {
        failed = await create(key);
      } finally {
        await db().query('ALTER TABLE transactions_away RENAME TO transactions');
      }
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.body, { detail: 'Internal server error.' });
      assert.equal(await keyRows().countBy({ key }), 0);
      const retry = await create(key).expect(201);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
    });

    it('fingerprints a multipart upload by its file: the same file replays, another file or name is another body', async () => {
      const key = newKey();
      const post = () =>
        multipartCreate(t.http().post(TXN_PATH).set('Authorization', s.apiKey).set('Idempotency-Key', key));
      const first = await post().attach('attachment', pdfFile(), 'invoice.pdf').expect(201);
      assert.match(String(first.body.attachment), /^http/);
      const before = await transactions();
      const again = await post().attach('attachment', pdfFile(), 'invoice.pdf').expect(201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text);

      const otherBytes = Buffer.concat([pdfFile(), Buffer.from('% another\n')]);
      assert.deepEqual(
        (await post().attach('attachment', otherBytes, 'invoice.pdf').expect(422)).body,
        MISMATCH,
      );
      assert.deepEqual(
        (await post().attach('attachment', pdfFile(), 'invoice-2.pdf').expect(422)).body,
        MISMATCH,
      );
      assert.deepEqual(
        (await post().attach('attachment', pngFile(), 'invoice.png').expect(422)).body,
        MISMATCH,
      );
      assert.deepEqual((await post().expect(422)).body, MISMATCH);
      assert.equal(await transactions(), before);
    });
  });

  describe('update', () => {
    const createOne = async () => (await create(null).expect(201)).body as { session_id: string };

    it('replays an update with the same ETag, applying it once', async () => {
      const { session_id: id } = await createOne();
      const key = newKey();
      const first = await update(id, key, { customer_first_name: 'Ada' }).expect(200);
      const row = await db().getRepository(Transaction).findOneByOrFail({ sessionId: id });
      const again = await update(id, key, { customer_first_name: 'Ada' }).expect(200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text);
      assert.equal(again.headers.etag, first.headers.etag);
      const after = await db().getRepository(Transaction).findOneByOrFail({ sessionId: id });
      assert.equal(after.version, row.version);
      assert.equal(after.updatedAt.getTime(), row.updatedAt.getTime());
    });

    it('replays a finished update even once the transaction can no longer be updated', async () => {
      const { session_id: id } = await createOne();
      const key = newKey();
      const first = await update(id, key, { customer_last_name: 'Lovelace' }).expect(200);
      await forceState(t, id, 'paid');
      const again = await update(id, key, { customer_last_name: 'Lovelace' }).expect(200);
      assert.equal(again.text, first.text);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    });

    it('refuses the same key with another body, or on another transaction, with 422', async () => {
      const { session_id: id } = await createOne();
      const { session_id: other } = await createOne();
      const key = newKey();
      await update(id, key, { customer_first_name: 'Ada' }).expect(200);
      assert.deepEqual((await update(id, key, { customer_first_name: 'Grace' }).expect(422)).body, MISMATCH);
      assert.deepEqual((await update(other, key, { customer_first_name: 'Ada' }).expect(422)).body, MISMATCH);
      const row = await t.app
        .get(DataSource)
        .getRepository(Transaction)
        .findOneByOrFail({ sessionId: other });
      assert.equal(row.customerFirstName, '');
    });

    it('keeps create and update keys apart: the same key may name one of each', async () => {
      const key = newKey();
      const created = await create(key).expect(201);
      const updated = await update(String(created.body.session_id), key, { vendor_name: 'Shop' }).expect(200);
      assert.equal(updated.headers['idempotent-replayed'], undefined);
      assert.equal(updated.body.vendor_name, 'Shop');
    });

    it('does not keep a stale If-Match refusal (412): the retry with a fresh ETag runs', async () => {
      const { session_id: id } = await createOne();
      const key = newKey();
      await update(id, key, { vendor_name: 'V' }, '"stale"').expect(412);
      const current = await t.http().get(txnPath(id)).expect(200);
      const done = await update(id, key, { vendor_name: 'V' }, String(current.headers.etag)).expect(200);
      assert.equal(done.headers['idempotent-replayed'], undefined);
      assert.equal(done.body.vendor_name, 'V');
    });

    it('does not keep a state refusal (409): once the transaction is payable again the retry runs', async () => {
      const { session_id: id } = await createOne();
      const key = newKey();
      await forceState(t, id, 'paid');
      const refused = await update(id, key, { vendor_name: 'W' }).expect(409);
      assert.deepEqual(refused.body, { detail: 'A transaction in state "paid" can no longer be updated.' });
      await forceState(t, id, 'failed');
      const done = await update(id, key, { vendor_name: 'W' }).expect(200);
      assert.equal(done.headers['idempotent-replayed'], undefined);
      assert.equal(done.body.vendor_name, 'W');
    });

    it('does not keep a 404 for an unknown session', async () => {
      const key = newKey();
      await update('0'.repeat(40), key, { vendor_name: 'X' }).expect(404);
      assert.equal(await keyRows().countBy({ key }), 0);
    });
  });
});
