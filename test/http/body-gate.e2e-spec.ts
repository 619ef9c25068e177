import assert from 'node:assert/strict';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BodyGate } from '../../src/common/http/body-gate';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

const MB = 1024 * 1024;
const WAIT_MS = 1500;
const UNAVAILABLE = { detail: 'Service temporarily unavailable.' };

/** A valid create body of exactly 1 MB. */
function megabyteBody(): Buffer {
  const body = { ...transactionBody(), padding: '' };
  body.padding = 'x'.repeat(MB - JSON.stringify(body).length);
  const bytes = Buffer.from(JSON.stringify(body));
  assert.equal(bytes.length, MB);
  return bytes;
}

interface HeldBody {
  /** Sends the rest of the body; resolves with the answer's status. */
  finish(): Promise<number>;
}

/** A create whose client sends half of its 1 MB body, then holds: its bytes stay in the gate. */
function holdBody(t: TestApp, auth: string): HeldBody {
  const body = megabyteBody();
  const { port } = new URL(t.url);
  const req: ClientRequest = request({
    host: '127.0.0.1',
    port: Number(port),
    method: 'POST',
    path: TXN_PATH,
    agent: false,
    headers: { Authorization: auth, 'Content-Type': 'application/json', 'Content-Length': body.length },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, body.length / 2));
  return {
    finish() {
      req.end(body.subarray(body.length / 2));
      return answered;
    },
  };
}

/** contract §17: a burst of large bodies is bounded; other requests keep their answers (issue #22 item 5). */
describe('bodies read and parsed at once are bounded', () => {
  let t: TestApp;
  let s: Seeded;
  let gate: BodyGate;
  before(async () => {
    t = await startApp({ env: { BODY_BYTES_IN_FLIGHT: String(2 * MB), BODY_WAIT_MS: String(WAIT_MS) } });
    s = await seedBasics(t);
    gate = t.app.get(BodyGate);
  });
  after(() => t.close());

  const untilInFlight = async (bytes: number) => {
    for (let i = 0; i < 200 && gate.bytesInFlight !== bytes; i++) await sleep(25);
    assert.equal(gate.bytesInFlight, bytes);
  };
  const post = (body: Buffer | string, type = 'application/json') =>
    fetch(`${t.url}${TXN_PATH}`, {
      method: 'POST',
      headers: { Authorization: s.apiKey, 'Content-Type': type },
      body,
    });

  it('a body over the bound waits its turn, then 503 + Retry-After; public retrieves answer meanwhile', async () => {
    const existing = await createTransaction(t, s);
    const first = holdBody(t, s.apiKey);
    const second = holdBody(t, s.apiKey);
    await untilInFlight(2 * MB);

    // A third body waits; one held body completing lets it in.
    const waiting = post(megabyteBody());
    await sleep(200);
    const retrieve = await t.http().get(txnPath(existing.session_id as string));
    assert.equal(retrieve.status, 200, 'a public retrieve answers while the gate is full');
    assert.equal(await first.finish(), 201);
    assert.equal((await waiting).status, 201, 'admitted once room was made');
    await untilInFlight(MB);

    // Full again: a JSON body, a small one and a multipart one are each refused after the wait.
    const third = holdBody(t, s.apiKey);
    await untilInFlight(2 * MB);
    const started = Date.now();
    const refusals = await Promise.all([
      post(megabyteBody()),
      post(JSON.stringify(transactionBody())),
      (() => {
        const form = new FormData();
        for (const [name, value] of Object.entries({ ...transactionBody(), pg_codes: 'sandbox' })) {
          form.append(name, String(value));
        }
        return fetch(`${t.url}${TXN_PATH}`, {
          method: 'POST',
          headers: { Authorization: s.apiKey },
          body: form,
        });
      })(),
    ]);
    const waited = Date.now() - started;
    for (const res of refusals) {
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.deepEqual(await res.json(), UNAVAILABLE);
    }
    assert.ok(waited >= WAIT_MS - 50, `refused after the wait, not at once (${waited} ms)`);
    assert.ok(waited < WAIT_MS + 3000, `refused within the wait (${waited} ms)`);
    for (let i = 0; i < 5; i++)
      await t
        .http()
        .get(txnPath(existing.session_id as string))
        .expect(200);

    assert.equal(await second.finish(), 201);
    assert.equal(await third.finish(), 201);
    await untilInFlight(0);
    await createTransaction(t, s);
  });

  it('does not count a body whose client went away', async () => {
    const { port } = new URL(t.url);
    const req = request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: TXN_PATH,
      agent: false,
      headers: { Authorization: s.apiKey, 'Content-Type': 'application/json', 'Content-Length': MB },
    });
    req.on('error', () => undefined);
    req.write('{"type": "');
    await untilInFlight(MB);
    req.destroy();
    await untilInFlight(0);
  });
});
