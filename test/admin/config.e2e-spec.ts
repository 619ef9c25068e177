import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AdminConfigService } from '../../src/admin-config/admin-config.service';
import { adminAuth } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/config/';

describe('admin config: GET and PATCH config/', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());
  beforeEach(async () => {
    await t.app.get(AdminConfigService).update({
      autoExpire: true,
      defaultRedirectUrl: null,
      merchantName: 'Checkout',
      webhookSigningKey: null,
    });
  });

  const patch = (body: unknown) =>
    t
      .http()
      .patch(PATH)
      .set('Authorization', adminAuth())
      .send(body as object);

  it('shows the defaults, with no signing key set', async () => {
    const res = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.deepEqual(res.body, {
      auto_expire: true,
      default_redirect_url: null,
      merchant_name: 'Checkout',
      webhook_signing_key_set: false,
      webhook_signing_key_source: null,
    });
  });

  it('changes only the fields sent, and GET shows the change', async () => {
    const res = await patch({ auto_expire: false, merchant_name: 'Example Shop' }).expect(200);
    assert.equal(res.body.auto_expire, false);
    assert.equal(res.body.merchant_name, 'Example Shop');
    assert.equal(res.body.default_redirect_url, null);
    const again = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.deepEqual(again.body, res.body);
    assert.equal((await t.app.get(AdminConfigService).get()).autoExpire, false);
  });

  it('keeps the webhook signing key write-only: never echoed, shown as set; null clears it', async () => {
    const res = await patch({ webhook_signing_key: 'whsec-pu9MpX3yPR-2026' }).expect(200);
    assert.equal(res.body.webhook_signing_key_set, true);
    assert.equal(res.body.webhook_signing_key_source, 'admin');
    assert.ok(!JSON.stringify(res.body).includes('whsec-pu9MpX3yPR-2026'));
    assert.equal('webhook_signing_key' in res.body, false);
    const got = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.ok(!JSON.stringify(got.body).includes('whsec-pu9MpX3yPR-2026'));
    assert.equal(await t.app.get(AdminConfigService).webhookSigningKey(), 'whsec-pu9MpX3yPR-2026');
    const cleared = await patch({ webhook_signing_key: null }).expect(200);
    assert.equal(cleared.body.webhook_signing_key_set, false);
    assert.equal(await t.app.get(AdminConfigService).webhookSigningKey(), null);
  });

  it('sets and clears the default redirect URL (at most 200 characters)', async () => {
    const url200 = `https://shop.example.com/${'a'.repeat(200 - 'https://shop.example.com/'.length)}`;
    assert.equal(url200.length, 200);
    const res = await patch({ default_redirect_url: url200 }).expect(200);
    assert.equal(res.body.default_redirect_url, url200);
    const tooLong = await patch({ default_redirect_url: `${url200}b` }).expect(400);
    assert.deepEqual(tooLong.body, {
      default_redirect_url: ['Ensure this field has no more than 200 characters.'],
    });
    const cleared = await patch({ default_redirect_url: null }).expect(200);
    assert.equal(cleared.body.default_redirect_url, null);
  });

  it('rejects a redirect URL that is not absolute http(s)', async () => {
    for (const url of ['ftp://shop.example.com/', '/relative/path', 'not a url']) {
      const res = await patch({ default_redirect_url: url }).expect(400);
      assert.deepEqual(res.body, { default_redirect_url: ['Enter a valid URL.'] }, url);
    }
  });

  it('accepts a merchant name of 128 characters and refuses 129, blank or null', async () => {
    await patch({ merchant_name: 'm'.repeat(128) }).expect(200);
    const res = await patch({ merchant_name: 'm'.repeat(129) }).expect(400);
    assert.deepEqual(res.body, { merchant_name: ['Ensure this field has no more than 128 characters.'] });
    assert.deepEqual((await patch({ merchant_name: '' }).expect(400)).body, {
      merchant_name: ['This field may not be blank.'],
    });
    assert.deepEqual((await patch({ merchant_name: null }).expect(400)).body, {
      merchant_name: ['This field may not be null.'],
    });
  });

  it('refuses a non-boolean or null auto_expire, and a blank or over-long signing key, all at once', async () => {
    const res = await patch({
      auto_expire: 'maybe',
      webhook_signing_key: 'k'.repeat(256),
      merchant_name: 7,
    }).expect(400);
    assert.deepEqual(res.body, {
      auto_expire: ['Must be a valid boolean.'],
      webhook_signing_key: ['Ensure this field has no more than 255 characters.'],
      merchant_name: ['Not a valid string.'],
    });
    assert.deepEqual((await patch({ auto_expire: null }).expect(400)).body, {
      auto_expire: ['This field may not be null.'],
    });
    assert.deepEqual((await patch({ webhook_signing_key: '' }).expect(400)).body, {
      webhook_signing_key: ['This field may not be blank.'],
    });
    await patch({ webhook_signing_key: 'k'.repeat(255) }).expect(200);
  });

  it('refuses a signing key shorter than 16 characters and keeps the one in effect', async () => {
    await patch({ webhook_signing_key: 'k'.repeat(16) }).expect(200);
    for (const key of ['k', 'k'.repeat(15)]) {
      assert.deepEqual((await patch({ webhook_signing_key: key }).expect(400)).body, {
        webhook_signing_key: ['Ensure this field has at least 16 characters.'],
      });
    }
    assert.equal(await t.app.get(AdminConfigService).webhookSigningKey(), 'k'.repeat(16));
  });

  it('writes nothing when the request is rejected', async () => {
    await patch({ merchant_name: 'Kept', auto_expire: 'nope' }).expect(400);
    const res = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.equal(res.body.merchant_name, 'Checkout');
  });

  it('ignores unknown fields', async () => {
    const res = await patch({ colour: 'blue', merchant_name: 'Shop' }).expect(200);
    assert.equal('colour' in res.body, false);
  });
});

describe('admin config with WEBHOOK_SIGNING_KEY in the environment', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ env: { WEBHOOK_SIGNING_KEY: 'from-env-key-0123456' } });
  });
  after(() => t.close());

  it('reports the key as set, from the environment, and never shows it', async () => {
    const res = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.equal(res.body.webhook_signing_key_set, true);
    assert.equal(res.body.webhook_signing_key_source, 'environment');
    assert.ok(!JSON.stringify(res.body).includes('from-env-key'));
  });
});
