import assert from 'node:assert/strict';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BodyGate, LARGE_BODY_BYTES, LargeBodyGate } from '../../src/common/http/body-gate';
import { pdfFile } from '../factories/attachment-files';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

const MB = 1024 * 1024;
/**
 * How long a body waits for room (BODY_WAIT_MS): long enough that a held body finished meanwhile
 * (its create answered) lets the waiting one in on a loaded machine, short enough to wait out.
 */
const WAIT_MS = 4000;
const UNAVAILABLE = { detail: 'Service temporarily unavailable.' };

/** A valid JSON create body of exactly `bytes` bytes (an unknown, ignored key pads it). */
function sizedBody(bytes: number): Buffer {
  const body = { ...transactionBody(), padding: '' };
  body.padding = 'x'.repeat(bytes - JSON.stringify(body).length);
  const text = Buffer.from(JSON.stringify(body));
  assert.equal(text.length, bytes);
  return text;
}

/** A valid JSON create body of exactly 1 MB. */
const megabyteBody = (): Buffer => sizedBody(MB);

const BOUNDARY = 'held-upload';

/** A valid multipart create of exactly 1 MB, most of it a PDF attachment: streamed to disk, not parsed. */
function megabyteUpload(): Buffer {
  const fields = Object.entries({ ...transactionBody(), pg_codes: 'sandbox' })
    .map(
      ([name, value]) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${String(value)}\r\n`,
    )
    .join('');
  const head = Buffer.from(
    `${fields}--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="invoice.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const pdf = pdfFile();
  const padding = MB - head.length - tail.length - pdf.length;
  const body = Buffer.concat([head, pdf, Buffer.from(`%${'x'.repeat(padding - 2)}\n`), tail]);
  assert.equal(body.length, MB);
  return body;
}

/** Held requests not answered yet: ended when a test fails half-way, so the app can close. */
const unfinished = new Set<ClientRequest>();

interface HeldBody {
  /** Sends the rest of the body; resolves with the answer's status. */
  finish(): Promise<number>;
}

/**
 * A create whose client sends half of its 1 MB body, then holds: its bytes stay in the gate. An
 * upload by default (it passes the {@link BodyGate} only), or a JSON body (the {@link LargeBodyGate} too).
 */
function holdBody(t: TestApp, auth: string, kind: 'upload' | 'json' = 'upload'): HeldBody {
  const body = kind === 'json' ? megabyteBody() : megabyteUpload();
  const type = kind === 'json' ? 'application/json' : `multipart/form-data; boundary=${BOUNDARY}`;
  const { port } = new URL(t.url);
  const req: ClientRequest = request({
    host: '127.0.0.1',
    port: Number(port),
    method: 'POST',
    path: TXN_PATH,
    agent: false,
    headers: { Authorization: auth, 'Content-Type': type, 'Content-Length': body.length },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, body.length / 2));
  unfinished.add(req);
  answered.finally(() => unfinished.delete(req)).catch(() => undefined);
  return {
    finish() {
      req.end(body.subarray(body.length / 2));
      return answered;
    },
  };
}

/** contract §17: a burst of large bodies is bounded; other requests keep their answers. */
describe('bodies read and parsed at once are bounded', () => {
  let t: TestApp;
  let s: Seeded;
  let gate: BodyGate;
  let largeGate: LargeBodyGate;
  before(async () => {
    t = await startApp({ env: { BODY_BYTES_IN_FLIGHT: String(2 * MB), BODY_WAIT_MS: String(WAIT_MS) } });
    s = await seedBasics(t);
    gate = t.app.get(BodyGate);
    largeGate = t.app.get(LargeBodyGate);
  });
  after(async () => {
    for (const req of unfinished) req.destroy();
    await t.close();
  });

  const untilInFlight = async (bytes: number, of: BodyGate = gate) => {
    for (let i = 0; i < 200 && of.bytesInFlight !== bytes; i++) await sleep(25);
    assert.equal(of.bytesInFlight, bytes);
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
    await untilInFlight(1, largeGate);
    req.destroy();
    await untilInFlight(0);
    await untilInFlight(0, largeGate);
  });

  it('reads and parses large JSON bodies one at a time; small bodies and uploads pass meanwhile', async () => {
    const existing = await createTransaction(t, s);
    const held = holdBody(t, s.apiKey, 'json');
    await untilInFlight(1, largeGate);
    await untilInFlight(MB);

    const started = Date.now();
    const waiting = [post(megabyteBody()), post(sizedBody(LARGE_BODY_BYTES + 1))];
    const passing = await Promise.all([
      post(sizedBody(LARGE_BODY_BYTES)),
      post(JSON.stringify(transactionBody())),
      (() => {
        const form = new FormData();
        for (const [name, value] of Object.entries({ ...transactionBody(), pg_codes: 'sandbox' })) {
          form.append(name, String(value));
        }
        form.append('attachment', new Blob([pdfFile()], { type: 'application/pdf' }), 'invoice.pdf');
        return fetch(`${t.url}${TXN_PATH}`, {
          method: 'POST',
          headers: { Authorization: s.apiKey },
          body: form,
        });
      })(),
    ]);
    for (const res of passing) assert.equal(res.status, 201, JSON.stringify(await res.json()));
    assert.ok(Date.now() - started < WAIT_MS, 'small bodies and uploads did not wait for the large one');
    assert.equal(largeGate.bytesInFlight, 1, 'nor did they take its place');
    await t
      .http()
      .get(txnPath(existing.session_id as string))
      .expect(200);

    for (const res of await Promise.all(waiting)) {
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.deepEqual(await res.json(), UNAVAILABLE);
    }
    const waited = Date.now() - started;
    assert.ok(waited >= WAIT_MS - 50, `large bodies refused after the wait, not at once (${waited} ms)`);
    assert.equal(await held.finish(), 201);
    await untilInFlight(0, largeGate);
    await untilInFlight(0);
    assert.equal(
      (await post(megabyteBody())).status,
      201,
      'the next large body is read once the first is answered',
    );
  });
});
