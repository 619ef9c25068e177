import type supertest from 'supertest';
import type { TestApp } from '../setup/test-app';

/** The sign-in form's double-submit token: any 64 hex digits, sent as cookie and field alike. */
const LOGIN_TOKEN = 'ab'.repeat(32);

/**
 * Posts the console's sign-in form as a browser would (the login cookie and its token), with
 * `cookies` besides (e.g. the session cookie the browser already holds) and extra headers.
 */
export function consoleSignIn(
  t: TestApp,
  username: string,
  password: string,
  options: { cookies?: string[]; headers?: Record<string, string> } = {},
): supertest.Test {
  const req = t
    .http()
    .post('/admin/sign-in')
    .type('form')
    .set('Cookie', [`checkout_admin_login=${LOGIN_TOKEN}`, ...(options.cookies ?? [])].join('; '));
  for (const [name, value] of Object.entries(options.headers ?? {})) req.set(name, value);
  return req.send({ csrf_token: LOGIN_TOKEN, username, password });
}

/** The `checkout_admin` session token a successful sign-in set, or null. */
export function sessionTokenOf(res: { headers: Record<string, unknown> }): string | null {
  const cookies = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  for (const cookie of cookies) {
    const match = /^checkout_admin=([^;]+)/.exec(cookie);
    if (match) return match[1];
  }
  return null;
}
