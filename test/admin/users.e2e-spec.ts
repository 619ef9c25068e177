import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsersService } from '../../src/auth/users/users.service';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, basicAuth, seedBasics } from '../setup/fixtures';
import { ADMIN, startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/users/';
const TXN = '/b/checkout/v1/pymt-txn/';

describe('admin users: GET, POST users/ and PATCH, DELETE users/{id}/', () => {
  let t: TestApp;
  let adminId: number;
  before(async () => {
    t = await startApp();
    await seedBasics(t);
    adminId = (await t.app.get(UsersService).list()).find((u) => u.username === ADMIN.username)!.id;
  });
  after(() => t.close());

  const post = (body: unknown) =>
    t
      .http()
      .post(PATH)
      .set('Authorization', adminAuth())
      .send(body as object);
  const patch = (id: number | string, body: unknown) =>
    t
      .http()
      .patch(`${PATH}${id}/`)
      .set('Authorization', adminAuth())
      .send(body as object);
  const del = (id: number | string) => t.http().delete(`${PATH}${id}/`).set('Authorization', adminAuth());
  const createTxn = (auth: string) => t.http().post(TXN).set('Authorization', auth).send(transactionBody());

  it('creates a user with defaults; it can authenticate with its gateway codes; no password in the answer', async () => {
    const res = await post({
      username: 'shop.user',
      password: 'shop-pass-1',
      gateway_codes: ['sandbox'],
    }).expect(201);
    const { id, created_at, updated_at, ...rest } = res.body;
    assert.equal(typeof id, 'number');
    assert.match(created_at, /Z$/);
    assert.match(updated_at, /Z$/);
    assert.deepEqual(rest, {
      username: 'shop.user',
      gateway_codes: ['sandbox'],
      is_admin: false,
      is_active: true,
    });
    assert.ok(!res.text.includes('shop-pass-1'));
    assert.ok(!/password|hash|scrypt/i.test(res.text));
    const tx = await createTxn(basicAuth('shop.user', 'shop-pass-1')).expect(201);
    assert.equal(tx.body.initiator_id, id);
  });

  it('lists users without passwords or hashes', async () => {
    const res = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.ok(res.body.some((u: { username: string }) => u.username === ADMIN.username));
    assert.ok(!/password|hash|scrypt/i.test(res.text));
  });

  it('refuses a duplicate username with a 400 under username', async () => {
    const res = await post({ username: 'merchant', password: 'another-pass' }).expect(400);
    assert.deepEqual(res.body, { username: ['A user with that username already exists.'] });
  });

  it('takes a password of 8 characters and refuses 7, and 128 but not 129', async () => {
    await post({ username: 'pw8', password: '12345678' }).expect(201);
    assert.deepEqual((await post({ username: 'pw7', password: '1234567' }).expect(400)).body, {
      password: ['Ensure this field has at least 8 characters.'],
    });
    await post({ username: 'pw128', password: 'p'.repeat(128) }).expect(201);
    assert.deepEqual((await post({ username: 'pw129', password: 'p'.repeat(129) }).expect(400)).body, {
      password: ['Ensure this field has no more than 128 characters.'],
    });
  });

  it('takes a username of 150 characters and refuses 151 and forbidden characters', async () => {
    await post({ username: 'u'.repeat(150), password: 'long-name-pass' }).expect(201);
    assert.deepEqual(
      (await post({ username: 'u'.repeat(151), password: 'long-name-pass' }).expect(400)).body,
      {
        username: ['Ensure this field has no more than 150 characters.'],
      },
    );
    for (const username of ['has space', 'colon:name', '']) {
      assert.deepEqual(
        (await post({ username, password: 'valid-pass' }).expect(400)).body,
        {
          username: [
            'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
          ],
        },
        username,
      );
    }
  });

  it('reports every missing or wrong field at once', async () => {
    assert.deepEqual((await post({}).expect(400)).body, {
      username: ['This field is required.'],
      password: ['This field is required.'],
    });
    const res = await post({
      username: 'x',
      password: 'valid-pass',
      is_admin: 'sure',
      gateway_codes: 'sandbox',
    }).expect(400);
    assert.deepEqual(res.body, {
      is_admin: ['Must be a valid boolean.'],
      gateway_codes: ['Expected a list of items but got type "str".'],
    });
  });

  it('refuses gateway codes that do not exist', async () => {
    const res = await post({
      username: 'ghost',
      password: 'ghost-pass',
      gateway_codes: ['sandbox', 'nope'],
    }).expect(400);
    assert.deepEqual(res.body, { gateway_codes: ['"nope" is not a valid gateway code.'] });
  });

  it('changes only the fields sent on PATCH; a new password replaces the old one', async () => {
    const created = await post({ username: 'patchable', password: 'first-pass' }).expect(201);
    const res = await patch(created.body.id, { password: 'second-pass', gateway_codes: ['sandbox'] }).expect(
      200,
    );
    assert.equal(res.body.username, 'patchable');
    assert.deepEqual(res.body.gateway_codes, ['sandbox']);
    assert.ok(!res.text.includes('second-pass'));
    await createTxn(basicAuth('patchable', 'first-pass')).expect(401);
    await createTxn(basicAuth('patchable', 'second-pass')).expect(201);
  });

  it('deactivating a user stops its authentication; reactivating restores it', async () => {
    const created = await post({
      username: 'sleepy',
      password: 'sleepy-pass',
      gateway_codes: ['sandbox'],
    }).expect(201);
    await patch(created.body.id, { is_active: false }).expect(200);
    const res = await createTxn(basicAuth('sleepy', 'sleepy-pass')).expect(401);
    assert.deepEqual(res.body, { detail: 'Invalid username or password.' });
    await patch(created.body.id, { is_active: true }).expect(200);
    await createTxn(basicAuth('sleepy', 'sleepy-pass')).expect(201);
  });

  it('applies the create rules on PATCH: duplicate username, short password, null, unknown gateway', async () => {
    const created = await post({ username: 'rules', password: 'rules-pass' }).expect(201);
    assert.deepEqual((await patch(created.body.id, { username: 'merchant' }).expect(400)).body, {
      username: ['A user with that username already exists.'],
    });
    assert.deepEqual((await patch(created.body.id, { password: 'short', is_admin: null }).expect(400)).body, {
      password: ['Ensure this field has at least 8 characters.'],
      is_admin: ['This field may not be null.'],
    });
    assert.deepEqual((await patch(created.body.id, { gateway_codes: ['nope'] }).expect(400)).body, {
      gateway_codes: ['"nope" is not a valid gateway code.'],
    });
  });

  it('does not let an admin deactivate, demote or delete themself', async () => {
    const res = await patch(adminId, { is_active: false, is_admin: false }).expect(400);
    assert.deepEqual(res.body, {
      is_active: ['You cannot deactivate your own account.'],
      is_admin: ['You cannot remove your own admin rights.'],
    });
    assert.deepEqual((await del(adminId).expect(409)).body, {
      detail: 'You cannot delete your own account.',
    });
    await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
  });

  it('deletes a user: it can no longer authenticate', async () => {
    const created = await post({
      username: 'leaving',
      password: 'leaving-pass',
      gateway_codes: ['sandbox'],
    }).expect(201);
    const res = await del(created.body.id).expect(204);
    assert.equal(res.text, '');
    await createTxn(basicAuth('leaving', 'leaving-pass')).expect(401);
    await del(created.body.id).expect(404);
  });

  it('answers 404 for an unknown or malformed id on PATCH and DELETE', async () => {
    for (const id of ['999999', 'abc']) {
      assert.deepEqual((await patch(id, { is_active: true }).expect(404)).body, { detail: 'Not found.' });
      assert.deepEqual((await del(id).expect(404)).body, { detail: 'Not found.' });
    }
  });
});
