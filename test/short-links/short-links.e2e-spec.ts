import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../src/database/db-values';
import { ShortLinksService } from '../../src/short-links/short-links.service';
import { pdfFile } from '../factories/attachment-files';
import { binaryParser, multipartCreate } from '../factories/multipart';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/pymt-txn/';
const SHORT_URL = (base: string) => new RegExp(`^${base}/s/[0-9A-Za-z]{8}$`);

describe('short links', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'checkout-short-links-'));
    t = await startApp({ env: { ATTACHMENT_DIR: dir } });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = () => t.http().post(PATH).set('Authorization', s.apiKey);
  const update = (sessionId: string) => t.http().patch(`${PATH}${sessionId}/`).set('Authorization', s.apiKey);
  const follow = (shortUrl: string) => t.http().get(new URL(shortUrl).pathname).redirects(0);

  it('leaves both short URLs empty unless asked', async () => {
    const res = await create().send(transactionBody()).expect(201);
    assert.equal(res.body.checkout_short_url, '');
    assert.equal(res.body.attachment_short_url, '');
  });

  it('shortify_checkout_url fills checkout_short_url, which redirects (302) to the checkout page', async () => {
    const res = await create()
      .send(transactionBody({ shortify_checkout_url: true }))
      .expect(201);
    const short = String(res.body.checkout_short_url);
    assert.match(short, SHORT_URL(t.url));
    const redirect = await follow(short).expect(302);
    assert.equal(redirect.headers.location, res.body.checkout_url);
    await t
      .http()
      .get(`${new URL(short).pathname}/`)
      .redirects(0)
      .expect(302)
      .expect('Location', String(res.body.checkout_url));
    const got = await t.http().get(`${PATH}${res.body.session_id}/`).expect(200);
    assert.equal(got.body.checkout_short_url, short);
  });

  it('accepts shortify flags as multipart text', async () => {
    const res = await multipartCreate(create(), { shortify_checkout_url: 'true' }).expect(201);
    assert.match(String(res.body.checkout_short_url), SHORT_URL(t.url));
  });

  it('shortify_attachment_url fills attachment_short_url, which leads to the file', async () => {
    const res = await multipartCreate(create(), { shortify_attachment_url: 'true' })
      .attach('attachment', pdfFile(), 'invoice.pdf')
      .expect(201);
    const short = String(res.body.attachment_short_url);
    assert.match(short, SHORT_URL(t.url));
    assert.equal(res.body.checkout_short_url, '');
    const redirect = await follow(short).expect(302);
    assert.equal(redirect.headers.location, res.body.attachment);
    const file = await t
      .http()
      .get(new URL(String(redirect.headers.location)).pathname)
      .buffer(true)
      .parse(binaryParser)
      .expect(200);
    assert.ok(pdfFile().equals(file.body as Buffer));
  });

  it('refuses shortify_attachment_url without an attachment', async () => {
    const res = await create()
      .send(transactionBody({ shortify_attachment_url: true }))
      .expect(400);
    assert.deepEqual(res.body, {
      shortify_attachment_url: ['An attachment is required to shortify its URL.'],
    });
  });

  it('on update: shortifies later, keeps the same link when nothing changes, follows a new file', async () => {
    const created = await multipartCreate(create()).attach('attachment', pdfFile(), 'first.pdf').expect(201);
    const id = created.body.session_id as string;
    const first = await update(id)
      .send({ shortify_checkout_url: true, shortify_attachment_url: true })
      .expect(200);
    assert.match(String(first.body.checkout_short_url), SHORT_URL(t.url));
    assert.match(String(first.body.attachment_short_url), SHORT_URL(t.url));
    const again = await update(id).send({ customer_first_name: 'Mona' }).expect(200);
    assert.equal(again.body.checkout_short_url, first.body.checkout_short_url);
    assert.equal(again.body.attachment_short_url, first.body.attachment_short_url);

    const replaced = await update(id).attach('attachment', pdfFile(), 'second.pdf').expect(200);
    assert.equal(replaced.body.checkout_short_url, first.body.checkout_short_url);
    assert.notEqual(replaced.body.attachment_short_url, first.body.attachment_short_url);
    const redirect = await follow(String(replaced.body.attachment_short_url)).expect(302);
    assert.equal(redirect.headers.location, replaced.body.attachment);
  });

  it('on update: clearing the attachment needs shortify_attachment_url turned off too', async () => {
    const created = await multipartCreate(create(), { shortify_attachment_url: 'true' })
      .attach('attachment', pdfFile(), 'a.pdf')
      .expect(201);
    const id = created.body.session_id as string;
    const refused = await update(id).send({ attachment: null }).expect(400);
    assert.deepEqual(Object.keys(refused.body as object), ['shortify_attachment_url']);
    const cleared = await update(id).send({ attachment: null, shortify_attachment_url: false }).expect(200);
    assert.equal(cleared.body.attachment, null);
    assert.equal(cleared.body.attachment_short_url, '');
  });

  it('turning shortify_checkout_url off empties checkout_short_url', async () => {
    const created = await create()
      .send(transactionBody({ shortify_checkout_url: true }))
      .expect(201);
    const off = await update(created.body.session_id as string)
      .send({ shortify_checkout_url: false })
      .expect(200);
    assert.equal(off.body.checkout_short_url, '');
  });

  it('answers 404 (JSON) for an unknown or malformed code', async () => {
    for (const code of ['Zz9Zz9Zz', 'short', 'abc$defg', 'a'.repeat(40)]) {
      const res = await t.http().get(`/s/${code}`).redirects(0).expect(404);
      assert.deepEqual(res.body, { detail: 'Not found.' });
    }
  });

  it('codes are case-sensitive', async () => {
    const res = await create()
      .send(transactionBody({ shortify_checkout_url: true }))
      .expect(201);
    const code = String(res.body.checkout_short_url).split('/s/')[1];
    const swapped = [...code]
      .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .join('');
    if (swapped !== code) await t.http().get(`/s/${swapped}`).redirects(0).expect(404);
  });

  it('the database keeps codes unique: a taken code is drawn again', async () => {
    const links = t.app.get(ShortLinksService);
    const manager = t.app.get(DataSource).manager; // each insert commits on its own
    const first = await links.create(manager, 'http://example.test/one', () => 'Taken007');
    assert.equal(first, `${t.url}/s/Taken007`);
    const draws = ['Taken007', 'Taken007', 'Fresh008'];
    const second = await links.create(manager, 'http://example.test/two', () => draws.shift()!);
    assert.equal(second, `${t.url}/s/Fresh008`);
    await assert.rejects(
      () => links.create(manager, 'http://example.test/three', () => 'Taken007'),
      (error: unknown) => isUniqueViolation(error),
    );
    await follow(first).expect(302).expect('Location', 'http://example.test/one');
    await follow(second).expect(302).expect('Location', 'http://example.test/two');
  });

  it('form-encoded bodies shortify too', async () => {
    const res = await create()
      .type('form')
      .send({
        ...transactionBody({ pg_codes: 'sandbox' }),
        shortify_checkout_url: 'true',
      });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(String(res.body.checkout_short_url), SHORT_URL(t.url));
  });
});
