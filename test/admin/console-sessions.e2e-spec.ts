import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminSessionsService } from '../../src/admin-console/admin-sessions.service';
import { UsersService } from '../../src/auth/users/users.service';
import { dataSourceOf } from '../events/event-helpers';
import { requestFrom } from '../auth/from-address';
import { adminAuth } from '../setup/fixtures';
import { ADMIN, startApp, TestApp } from '../setup/test-app';
import { createTestDatabase } from '../setup/test-database';
import { consoleSignIn, sessionTokenOf } from './console-sign-in';

/** contract §19: console sessions end when idle, when the user stops being an admin, and on sign-out; §3 throttling. */
describe('admin console sessions', () => {
  let t: TestApp;
  let sessions: AdminSessionsService;
  before(async () => {
    t = await startApp({ env: { ADMIN_SESSION_IDLE_MINUTES: '30', AUTH_FAILURE_LIMIT: '3' } });
    sessions = t.app.get(AdminSessionsService);
  });
  after(() => t.close());

  const signIn = async (username = ADMIN.username, password = ADMIN.password) => {
    const outcome = await sessions.signIn(username, password, '127.0.0.9');
    assert.ok(outcome.ok, JSON.stringify(outcome));
    return outcome.token;
  };

  it('stores only a hash of the token, and ends a session idle longer than the timeout', async () => {
    const token = await signIn();
    const rows = await dataSourceOf(t).query<{ token_hash: string }[]>(
      'SELECT token_hash FROM admin_sessions',
    );
    assert.ok(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash)));
    const now = Date.now();
    assert.ok(await sessions.resolve(token, new Date(now + 29 * 60_000)), 'still alive after 29 min');
    // That use moved it on: idle is counted from the last use.
    assert.ok(await sessions.resolve(token, new Date(now + 58 * 60_000)));
    assert.equal(await sessions.resolve(token, new Date(now + 89 * 60_000)), null, 'idle for 31 min');
    assert.equal(await sessions.resolve(token, new Date(now + 58 * 60_000)), null, 'and gone for good');
  });

  it('signs out a user who is deactivated or no longer an admin, and on sign-out', async () => {
    const users = t.app.get(UsersService);
    const other = await users.create({
      username: 'second-admin',
      password: 'second-admin-1',
      gatewayCodes: [],
      isAdmin: true,
    });
    const token = await signIn('second-admin', 'second-admin-1');
    assert.ok(await sessions.resolve(token));
    await users.update(other.id, { isAdmin: false });
    assert.equal(await sessions.resolve(token), null);

    const mine = await signIn();
    await sessions.signOut(mine);
    assert.equal(await sessions.resolve(mine), null);
  });

  it('throttles failed sign-ins with the same counters as Basic auth: per address and name', async () => {
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await sessions.signIn('nobody', 'wrong-password', '127.0.0.1'), {
        ok: false,
        reason: 'invalid',
      });
    }
    const throttled = await sessions.signIn('nobody', 'wrong-password', '127.0.0.1');
    assert.equal(throttled.ok, false);
    assert.equal(!throttled.ok && throttled.reason, 'throttled');
    // The Basic API (supertest comes from 127.0.0.1) sees the same address and name over its limit.
    const basic = Buffer.from('nobody:wrong-password').toString('base64');
    await t.http().get('/b/checkout/v1/admin/config/').set('Authorization', `Basic ${basic}`).expect(429);
    // Another address keeps its budget.
    assert.deepEqual(await sessions.signIn('nobody', 'wrong-password', '127.0.0.8'), {
      ok: false,
      reason: 'invalid',
    });
  });

  it('lets the right password in from an address locked for that name', async () => {
    for (let i = 0; i < 4; i++) await sessions.signIn(ADMIN.username, 'guess', '127.0.0.7');
    const locked = await sessions.signIn(ADMIN.username, 'guess', '127.0.0.7');
    assert.equal(!locked.ok && locked.reason, 'throttled');
    assert.ok((await sessions.signIn(ADMIN.username, ADMIN.password, '127.0.0.7')).ok);
    assert.ok((await sessions.signIn(ADMIN.username, ADMIN.password, '127.0.0.6')).ok);
    const after = await sessions.signIn(ADMIN.username, 'guess', '127.0.0.7');
    assert.equal(!after.ok && after.reason, 'invalid', 'the right password cleared the count');
  });

  it('over HTTP: wrong passwords from another address do not lock the admin out of the console', async () => {
    const form = (password: string) =>
      requestFrom(t.url, '127.0.0.2', {
        method: 'POST',
        path: '/admin/sign-in',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Cookie: `checkout_admin_login=${'cd'.repeat(32)}`,
        },
        body: new URLSearchParams({
          csrf_token: 'cd'.repeat(32),
          username: ADMIN.username,
          password,
        }).toString(),
      });
    for (let i = 0; i < 3; i++) assert.equal((await form('guess')).status, 401);
    assert.equal((await form('guess')).status, 429);
    const res = await consoleSignIn(t, ADMIN.username, ADMIN.password).expect(303);
    assert.ok(sessionTokenOf(res));
    assert.equal((await form(ADMIN.password)).status, 303);
  });
});

/**
 * contract §19: a user's console sessions end when their password changes, when they are
 * deactivated, demoted or deleted — through the admin API and through the console — and a
 * sign-in replaces the session the browser came with.
 */
describe('admin console sessions are revoked', () => {
  let t: TestApp;
  let sessions: AdminSessionsService;
  let users: UsersService;
  before(async () => {
    t = await startApp();
    sessions = t.app.get(AdminSessionsService);
    users = t.app.get(UsersService);
  });
  after(() => t.close());

  let n = 0;
  /** A fresh admin with two console sessions (two browsers). */
  const adminWithSessions = async () => {
    const username = `admin-${++n}`;
    const user = await users.create({
      username,
      password: 'admin-pass-123',
      gatewayCodes: [],
      isAdmin: true,
    });
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const outcome = await sessions.signIn(username, 'admin-pass-123', '127.0.0.1');
      assert.ok(outcome.ok);
      tokens.push(outcome.token);
    }
    return { user, username, tokens };
  };
  const rowsOf = async (userId: number) =>
    Number(
      (
        await dataSourceOf(t).query<{ n: number | string }[]>(
          'SELECT COUNT(*) AS n FROM admin_sessions WHERE user_id = ?',
          [userId],
        )
      )[0].n,
    );
  const alive = async (tokens: string[]) =>
    (await Promise.all(tokens.map((token) => sessions.resolve(token)))).map(Boolean);
  const patch = (id: number, body: object) =>
    t
      .http()
      .patch(`/b/checkout/v1/admin/users/${id}/`)
      .set('Authorization', adminAuth())
      .send(body)
      .expect(200);

  it('a new password (admin API) ends them all; the new password signs in again', async () => {
    const { user, username, tokens } = await adminWithSessions();
    await patch(user.id, { password: 'new-admin-pass-1' });
    assert.deepEqual(await alive(tokens), [false, false]);
    assert.equal(await rowsOf(user.id), 0);
    assert.ok((await sessions.signIn(username, 'new-admin-pass-1', '127.0.0.1')).ok);
  });

  it('deactivating ends them for good: activating again does not bring them back', async () => {
    const { user, tokens } = await adminWithSessions();
    await patch(user.id, { is_active: false });
    assert.equal(await rowsOf(user.id), 0);
    await patch(user.id, { is_active: true });
    assert.deepEqual(await alive(tokens), [false, false]);
  });

  it('demoting ends them for good: making them admin again does not bring them back', async () => {
    const { user, tokens } = await adminWithSessions();
    await patch(user.id, { is_admin: false });
    assert.equal(await rowsOf(user.id), 0);
    await patch(user.id, { is_admin: true });
    assert.deepEqual(await alive(tokens), [false, false]);
  });

  it('deleting the user ends them', async () => {
    const { user } = await adminWithSessions();
    await t
      .http()
      .delete(`/b/checkout/v1/admin/users/${user.id}/`)
      .set('Authorization', adminAuth())
      .expect(204);
    assert.equal(await rowsOf(user.id), 0);
  });

  it('other changes (gateway codes, the name) keep them', async () => {
    const { user, tokens } = await adminWithSessions();
    await patch(user.id, { gateway_codes: [], username: `renamed-${n}` });
    assert.deepEqual(await alive(tokens), [true, true]);
  });

  it('a new password set in the console ends that user’s sessions, the editor’s own included when it is theirs', async () => {
    const { user, username, tokens } = await adminWithSessions();
    const editor = await adminWithSessions();
    const session = await sessions.resolve(editor.tokens[0]);
    assert.ok(session);
    const edit = (id: number, password: string) =>
      t
        .http()
        .post(`/admin/users/${id}`)
        .type('form')
        .set('Cookie', `checkout_admin=${editor.tokens[0]}`)
        .send({
          csrf_token: session.session.csrfToken,
          username: id === user.id ? username : editor.username,
          password,
          gateway_codes: '',
          is_admin: 'true',
          is_active: 'true',
        });
    await edit(user.id, 'console-pass-123').expect(303);
    assert.deepEqual(await alive(tokens), [false, false]);
    assert.deepEqual(await alive(editor.tokens), [true, true]);
    await edit(editor.user.id, 'console-pass-456').expect(303);
    assert.deepEqual(await alive(editor.tokens), [false, false]);
  });

  it('a sign-in replaces the session the browser came with, not the user’s other browsers', async () => {
    const { username, tokens } = await adminWithSessions();
    const res = await consoleSignIn(t, username, 'admin-pass-123', {
      cookies: [`checkout_admin=${tokens[0]}`],
    }).expect(303);
    const fresh = sessionTokenOf(res);
    assert.ok(fresh && fresh !== tokens[0]);
    assert.deepEqual(await alive([tokens[0], tokens[1], fresh]), [false, true, true]);
  });

  it('reads a console form only after its session: without one, redirected with the body never parsed (contract §3)', async () => {
    const malformed = (cookie?: string) => {
      const req = t.http().post('/admin/users').set('Content-Type', 'application/json');
      if (cookie) req.set('Cookie', cookie);
      return req.send('{"username": ');
    };
    // Parsed, this body is a 400; unread, the request is only a visitor to send to the sign-in page.
    for (const cookie of [undefined, 'checkout_admin=no-such-session']) {
      const res = await malformed(cookie).expect(303);
      assert.equal(res.headers.location, '/admin/sign-in');
    }
    const [token] = (await adminWithSessions()).tokens;
    const parsed = await malformed(`checkout_admin=${token}`).expect(400);
    assert.match(String((parsed.body as { detail?: string }).detail), /JSON/i);
    await sessions.signOut(token);
    await malformed(`checkout_admin=${token}`).expect(303);
  });

  it('answers a record that is not there with the console’s 404 page, and a form without its token with 403', async () => {
    const [token] = (await adminWithSessions()).tokens;
    const session = await sessions.resolve(token);
    assert.ok(session);
    const cookie = `checkout_admin=${token}`;
    const page = (path: string) => t.http().get(path).set('Cookie', cookie);
    const form = (path: string, fields: Record<string, string> = {}) =>
      t.http().post(path).type('form').set('Cookie', cookie).send(fields);
    const withToken = { csrf_token: session.session.csrfToken };
    const answers: Array<[string, Promise<{ status: number; text: string }>]> = [
      ['GET users/999999', page('/admin/users/999999')],
      ['GET users/not-a-number', page('/admin/users/not-a-number')],
      ['GET gateways/no-such-gateway', page('/admin/gateways/no-such-gateway')],
      ['GET transactions/000…', page(`/admin/transactions/${'0'.repeat(40)}`)],
      ['POST users/999999', form('/admin/users/999999', withToken)],
      ['POST currencies/XXX/delete', form('/admin/currencies/XXX/delete', withToken)],
      ['POST api-keys/0/revoke', form('/admin/api-keys/0/revoke', withToken)],
      ['POST gateways/no-such-gateway/delete', form('/admin/gateways/no-such-gateway/delete', withToken)],
    ];
    for (const [name, answer] of answers) {
      const res = await answer;
      assert.equal(res.status, 404, name);
      assert.match(res.text, /<title>[^<]*Not found/i, name);
      assert.match(res.text, /csrf_token/, `${name}: still the signed-in console (its sign-out form)`);
    }
    const forged = await form('/admin/currencies', { csrf_token: 'x'.repeat(43), code: 'EUR' });
    assert.equal(forged.status, 403);
    assert.equal((await page('/admin/currencies')).text.includes('>EUR<'), false, 'nothing written');
    const stranger = await t.http().get('/admin/users/999999').expect(303);
    assert.equal(stranger.headers.location, '/admin/sign-in');
  });

  it('a new ADMIN_PASSWORD at start-up ends the admin’s sessions', async () => {
    const db = await createTestDatabase();
    let replica: TestApp | null = await startApp({ db });
    try {
      const outcome = await replica.app
        .get(AdminSessionsService)
        .signIn(ADMIN.username, ADMIN.password, '127.0.0.1');
      assert.ok(outcome.ok);
      assert.ok(await replica.app.get(AdminSessionsService).resolve(outcome.token));
      await replica.close();
      replica = null;
      replica = await startApp({ db, env: { ADMIN_PASSWORD: 'rotated-admin-pass-1' } });
      assert.equal(await replica.app.get(AdminSessionsService).resolve(outcome.token), null);
    } finally {
      await replica?.close();
      await db.drop();
    }
  });
});
