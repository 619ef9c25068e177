// The baseline of `npm run bench`: a bare `node:http` + `mysql2` server doing the same single
// INSERT (create) and SELECT (retrieve) on the same `transactions` table as the service, with no
// framework, validation, auth or logging. `node dist/bench/raw-server.js` with DATABASE_URL, PORT.
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { createPool, RowDataPacket } from 'mysql2/promise';

const pool = createPool({ uri: process.env.DATABASE_URL, connectionLimit: 10, timezone: 'Z' });
const PATH = '/b/checkout/v1/pymt-txn/';

const INSERT = `INSERT INTO transactions (session_id, state, version, type, amount, currency_code, pg_code,
  operation, mode, webhook_url, redirect_url, customer_id, customer_first_name, customer_last_name,
  customer_email, customer_phone, notifications, vendor_name, expiration_seconds, email_recipients,
  extra, product_type, language, shortify_attachment_url, shortify_checkout_url, checkout_short_url,
  attachment_short_url, paid_amount, captured_amount, refunded_amount, voided_amount, created_at,
  updated_at, expires_at)
  VALUES (?, 'created', 1, ?, ?, ?, ?, 'purchase', 'payment', '', '', '', '', '', '', '', '{}', '', 3600,
  '[]', '{}', '', 'en', 0, 0, '', '', 0, 0, 0, 0, ?, ?, ?)`;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString();
  const body = JSON.parse(text) as {
    type: string;
    amount: string;
    currency_code: string;
    pg_codes: string[];
  };
  const sessionId = randomBytes(20).toString('hex');
  const now = new Date();
  const expires = new Date(now.getTime() + 3_600_000);
  await pool.execute(INSERT, [
    sessionId,
    body.type,
    body.amount,
    body.currency_code,
    body.pg_codes[0],
    now,
    now,
    expires,
  ]);
  send(res, 201, {
    session_id: sessionId,
    state: 'created',
    amount: body.amount,
    currency_code: body.currency_code,
  });
}

async function retrieve(sessionId: string, res: ServerResponse): Promise<void> {
  const [rows] = await pool.execute<RowDataPacket[]>('SELECT * FROM transactions WHERE session_id = ?', [
    sessionId,
  ]);
  if (rows.length === 0) return send(res, 404, { detail: 'Not found.' });
  send(res, 200, rows[0]);
}

const server = createServer((req, res) => {
  const url = req.url ?? '';
  const work =
    req.method === 'POST' && url === PATH
      ? create(req, res)
      : req.method === 'GET' && url.startsWith(PATH)
        ? retrieve(url.slice(PATH.length).replace(/\/$/, ''), res)
        : Promise.resolve(send(res, 404, { detail: 'Not found.' }));
  work.catch((error: unknown) => send(res, 500, { detail: String(error) }));
});

server.listen(Number(process.env.PORT ?? 3100), '127.0.0.1', () =>
  process.stdout.write('raw server listening\n'),
);
process.on('SIGTERM', () => server.close(() => void pool.end()));
