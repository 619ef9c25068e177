// The floor of `npm run bench`: what a create and a retrieve must cost on this stack,
// measured in the same run as the service. A bare NestJS + Express app with ONE class-validator DTO
// (the service's CreateTransactionDto: the create's fields and limits), an in-memory API-key check,
// mysql2 without an ORM. Create writes the same rows in one DB transaction (the transaction, its
// `created` event, its webhook delivery claimed by this process: 5 statements), answers the same
// JSON representation and ETag, then posts the same signed webhook over a keep-alive agent and
// records the attempt and the delivery (finishes within 2 ms written together: one INSERT, one
// UPDATE). Retrieve (public, as the service's): one SELECT, the same representation. Nothing is cached but the reference data
// (currencies, gateways: the service caches them too); every request is validated and written.
// `node dist/bench/floor-server.js` with PORT, DATABASE_URL, FLOOR_AUTHORIZATION (the API key's
// Authorization header), PUBLIC_BASE_URL, WEBHOOK_SIGNING_KEY.
import 'reflect-metadata';
import {
  BadRequestException,
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Headers,
  HttpCode,
  Injectable,
  Module,
  NotFoundException,
  Param,
  Post,
  Res,
  UnauthorizedException,
  UseGuards,
  ValidationPipe,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'express';
import { Agent, request } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { createPool, Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { randomHex } from '../src/common/random/random-pool';
import { formatDuration, parseDuration } from '../src/common/time/duration';
import { payloadSignature, standardWebhookSignature } from '../src/events/webhooks/signature';
import { CreateTransactionDto } from '../src/transactions/dto/create-transaction.dto';
import { checkoutPageUrl, checkoutUrl, paymentPageUrl } from '../src/transactions/transaction-urls';

const BASE = (process.env.PUBLIC_BASE_URL ?? 'http://localhost').replace(/\/+$/, '');
const SIGNING_KEY = process.env.WEBHOOK_SIGNING_KEY ?? '';
const FINISH_WINDOW_MS = 2;
const LEASE_MS = 60_000;

const pool: Pool = createPool({
  uri: process.env.DATABASE_URL,
  connectionLimit: 10,
  timezone: 'Z',
  supportBigNumbers: true,
  bigNumberStrings: true,
});

// ---- decimal money without a decimal library: BigInt at a scale -------------------------------

interface Scaled {
  v: bigint;
  s: number;
}
const scaled = (text: string): Scaled => {
  const [int, frac = ''] = String(text).split('.');
  return { v: BigInt(int + frac), s: frac.length };
};
const rescale = (a: Scaled, s: number): bigint => a.v * 10n ** BigInt(s - a.s);
/** Exactly `digits` decimals, half-up (values here are never negative). */
function fixed(a: Scaled, digits: number): string {
  let v = a.v;
  if (a.s > digits) {
    const div = 10n ** BigInt(a.s - digits);
    v = (v + div / 2n) / div;
  } else v = v * 10n ** BigInt(digits - a.s);
  const text = v.toString().padStart(digits + 1, '0');
  return digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
}
const money = (text: string, digits: number) => fixed(scaled(text), digits);
/** `fixed + amount × percent / 100`, half-up to the currency's digits. */
function fee(amount: string, feeFixed: string, feePercent: string, digits: number): string {
  const a = scaled(amount);
  const p = scaled(feePercent);
  const product: Scaled = { v: a.v * p.v, s: a.s + p.s + 2 };
  const f = scaled(feeFixed);
  const s = Math.max(product.s, f.s);
  return fixed({ v: rescale(product, s) + rescale(f, s), s }, digits);
}
/** No exponent, no leading or trailing zeros: the stored text. */
function canonical(text: string): string {
  const [int, frac = ''] = text.split('.');
  const i = int.replace(/^0+(?=\d)/, '');
  const f = frac.replace(/0+$/, '');
  return f ? `${i}.${f}` : i;
}
const significantDecimals = (text: string): number => (text.split('.')[1] ?? '').replace(/0+$/, '').length;

// ---- reference data, loaded once ----------------------------------------------------------------

interface Currency {
  code: string;
  digits: number;
}
interface Gateway {
  code: string;
  name: string;
  pg: string;
  type: string;
  operation: string;
  currencies: string[];
  fee_fixed: string;
  fee_percent: string;
  icon: string;
  flow: string;
  is_active: number;
}
const currencies = new Map<string, Currency>();
const gateways = new Map<string, Gateway>();
async function loadReferenceData(): Promise<void> {
  const [cs] = await pool.query<RowDataPacket[]>('SELECT code, digits FROM currencies');
  for (const c of cs) currencies.set(c.code as string, { code: c.code as string, digits: Number(c.digits) });
  const [gs] = await pool.query<RowDataPacket[]>('SELECT * FROM gateways');
  for (const g of gs)
    gateways.set(g.code as string, { ...(g as Gateway), currencies: JSON.parse(g.currencies) });
}

// ---- the row, its representation, its webhook --------------------------------------------------

/** A transactions row as mysql2 reads it (JSON columns parsed). */
type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const JSON_COLUMNS = ['billing_address', 'notifications', 'agreement', 'email_recipients', 'extra'];
const COLUMNS = [
  'session_id', 'state', 'version', 'type', 'amount', 'currency_code', 'pg_code', 'operation', 'mode',
  'webhook_url', 'redirect_url', 'customer_id', 'customer_first_name', 'customer_last_name',
  'customer_email', 'customer_phone', 'billing_address', 'order_no', 'live_order_no', 'notifications',
  'qr_code_token', 'payment_type', 'agreement', 'vendor_name', 'expiration_seconds', 'email_recipients',
  'extra', 'product_type', 'language', 'shortify_attachment_url', 'shortify_checkout_url',
  'checkout_short_url', 'attachment_short_url', 'attachment_token', 'attachment_name', 'initiator_id',
  'api_key_id', 'remarks', 'paid_amount', 'captured_amount', 'refunded_amount', 'voided_amount',
  'deleted_at', 'created_at', 'updated_at', 'expires_at', 'attempt_in_flight', 'event_sequence',
]; // prettier-ignore
const INSERT_TRANSACTION = `INSERT INTO transactions (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;

const isSandbox = (g: Gateway) => g.type === 'sandbox';

function representation(tx: Row, gateway: Gateway | undefined, digits: number): Record<string, unknown> {
  const m = (v: string) => money(v, digits);
  const amount = m(tx.amount);
  return {
    session_id: tx.session_id,
    state: tx.state,
    type: tx.type,
    operation: tx.operation,
    amount,
    currency_code: tx.currency_code,
    pg_codes: [tx.pg_code],
    payment_methods: gateway
      ? [
          {
            code: gateway.code,
            name: gateway.name,
            pg: gateway.pg,
            type: gateway.type,
            is_sandbox: isSandbox(gateway),
            icon: gateway.icon || `${BASE}/b/checkout/static/icons/${encodeURIComponent(gateway.pg)}.svg`,
            flow: gateway.flow,
            amount,
            currency_code: tx.currency_code,
            fee: fee(tx.amount, gateway.fee_fixed, gateway.fee_percent, digits),
            redirect_url: paymentPageUrl(BASE, tx.session_id, gateway.code),
          },
        ]
      : [],
    checkout_url: checkoutUrl(BASE, tx.session_id),
    checkout_page_url: checkoutPageUrl(BASE, tx.session_id),
    qr_code_url: '',
    checkout_short_url: tx.checkout_short_url,
    attachment: null,
    attachment_short_url: tx.attachment_short_url,
    mode: tx.mode,
    webhook_url: tx.webhook_url,
    redirect_url: tx.redirect_url,
    customer_id: tx.customer_id,
    customer_first_name: tx.customer_first_name,
    customer_last_name: tx.customer_last_name,
    customer_email: tx.customer_email,
    customer_phone: tx.customer_phone,
    customer_address_city: tx.billing_address?.city ?? '',
    billing_address: tx.billing_address,
    order_no: tx.order_no,
    notifications: tx.notifications,
    vendor_name: tx.vendor_name,
    expiration_time: formatDuration(tx.expiration_seconds),
    email_recipients: tx.email_recipients,
    extra: tx.extra,
    product_type: tx.product_type,
    language: tx.language,
    payment_type: tx.payment_type,
    settled_pg_code: '',
    agreement: tx.agreement,
    shortify_attachment_url: Boolean(tx.shortify_attachment_url),
    shortify_checkout_url: Boolean(tx.shortify_checkout_url),
    initiator_id: tx.initiator_id,
    remarks: tx.remarks,
    paid_amount: m(tx.paid_amount),
    captured_amount: m(tx.captured_amount),
    refunded_amount: m(tx.refunded_amount),
    voided_amount: m(tx.voided_amount),
    created_at: tx.created_at.toISOString(),
    updated_at: tx.updated_at.toISOString(),
    expires_at: tx.expires_at.toISOString(),
  };
}

/** The `created` webhook body (without `signature`), as the service's event payload. */
function createdPayload(tx: Row, gateway: Gateway, digits: number, eventId: string, at: Date) {
  const m = (v: string) => money(v, digits);
  const amount = m(tx.amount);
  const theFee = fee(tx.amount, gateway.fee_fixed, gateway.fee_percent, digits);
  const a = tx.billing_address;
  return {
    event: 'created',
    event_id: eventId,
    sequence: 1,
    session_id: tx.session_id,
    order_no: tx.order_no,
    state: tx.state,
    payment_type: tx.payment_type,
    amount,
    currency_code: tx.currency_code,
    fee: theFee,
    amount_details: {
      amount,
      currency_code: tx.currency_code,
      fee: theFee,
      total: fee(tx.amount, theFee, '100', digits), // amount × 100 / 100 + fee
    },
    gateway_account: tx.pg_code,
    gateway_name: gateway.name,
    is_sandbox: isSandbox(gateway),
    reference_number: '',
    result: '',
    paid_amount: m('0'),
    captured_amount: m('0'),
    refunded_amount: m('0'),
    settled_amount: m('0'),
    remaining_amount: amount,
    voided_amount: m('0'),
    message: '',
    gateway_response: {},
    pg_params: {},
    token: null,
    customer_id: tx.customer_id,
    customer_first_name: tx.customer_first_name,
    customer_last_name: tx.customer_last_name,
    customer_email: tx.customer_email,
    customer_phone: tx.customer_phone,
    customer_address_line1: a?.line1 ?? '',
    customer_address_line2: a?.line2 ?? '',
    customer_address_city: a?.city ?? '',
    customer_address_state: a?.state ?? '',
    customer_address_country: a?.country ?? '',
    customer_address_postal_code: a?.postal_code ?? '',
    extra: tx.extra,
    timestamp_utc: at.toISOString().slice(0, 19).replace('T', ' '),
  };
}

// ---- webhook sending and the batched finish ----------------------------------------------------

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
interface Finish {
  deliveryId: string;
  token: string;
  at: Date;
  status: number | null;
  durationMs: number;
  error: string | null;
  body: string | null;
}
let finishing: Finish[] = [];

function flush(): void {
  const batch = finishing;
  finishing = [];
  const attempts = batch.map((f) => [f.deliveryId, f.at, f.status, f.durationMs, f.error, f.body]);
  const params: unknown[] = [];
  const perRow = (value: (f: Finish) => unknown) =>
    `CASE id ${batch.map((f) => (params.push(f.deliveryId, value(f)), 'WHEN ? THEN ?')).join(' ')} END`;
  const sets = [
    `status = ${perRow((f) => (f.status !== null && f.status < 300 ? 'delivered' : 'pending'))}`,
    'attempts = attempts + 1',
    'claimed_by = NULL',
    'claimed_until = NULL',
    `last_attempt_at = ${perRow((f) => f.at)}`,
    `last_status_code = ${perRow((f) => f.status)}`,
    `last_error = ${perRow((f) => f.error)}`,
  ];
  const where = batch.map((f) => (params.push(f.deliveryId, f.token), '(id = ? AND claimed_by = ?)'));
  void pool
    .query(
      'INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body) VALUES ?',
      [attempts],
    )
    .then(() => pool.query(`UPDATE deliveries SET ${sets.join(', ')} WHERE ${where.join(' OR ')}`, params))
    .catch((e: unknown) => console.error('floor: finish failed', e));
}

function finish(f: Finish): void {
  finishing.push(f);
  if (finishing.length === 1) setTimeout(flush, FINISH_WINDOW_MS);
}

function send(
  url: string,
  eventId: string,
  payload: Record<string, unknown>,
  deliveryId: string,
  token: string,
) {
  const signature = SIGNING_KEY ? payloadSignature(payload, SIGNING_KEY) : '';
  const body = JSON.stringify({ ...payload, signature });
  const at = new Date();
  const timestamp = Math.floor(at.getTime() / 1000);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
  };
  if (SIGNING_KEY) {
    headers['Signature'] = signature;
    headers['webhook-signature'] = standardWebhookSignature(eventId, timestamp, body, SIGNING_KEY);
  }
  const done = (status: number | null, error: string | null, text: string | null) =>
    finish({ deliveryId, token, at, status, durationMs: Date.now() - at.getTime(), error, body: text });
  const req = request(url, { method: 'POST', agent, headers, timeout: 10_000 }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (text.length < 1024) text += chunk;
    });
    res.on('end', () => done(res.statusCode ?? null, null, text.slice(0, 1024)));
  });
  req.on('error', (e) => done(null, e.message.slice(0, 500), null));
  req.end(body);
}

// ---- the app --------------------------------------------------------------------------------------

@Injectable()
class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<{ headers: Record<string, string> }>()
      .headers.authorization;
    if (header !== process.env.FLOOR_AUTHORIZATION) throw new UnauthorizedException();
    return true;
  }
}

const claimToken = randomBytes(8).toString('hex');

@Controller('b/checkout/v1/pymt-txn')
class FloorController {
  @Post()
  @HttpCode(201)
  @UseGuards(ApiKeyGuard)
  async create(
    @Body(new ValidationPipe({ whitelist: true, transform: true })) dto: CreateTransactionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Record<string, unknown>> {
    const currency = currencies.get(dto.currency_code);
    const gateway = gateways.get(dto.pg_codes[0]);
    if (!currency) throw new BadRequestException({ currency_code: ['not a configured currency'] });
    if (!gateway?.is_active) throw new BadRequestException({ pg_codes: ['not a valid gateway code'] });
    if (!gateway.currencies.includes(currency.code))
      throw new BadRequestException({ currency_code: ['not accepted by the gateway'] });
    if (significantDecimals(dto.amount) > currency.digits)
      throw new BadRequestException({ amount: ['too many decimals'] });
    const now = new Date();
    const expiration = dto.expiration_time ? parseDuration(dto.expiration_time)! : 3600;
    const notifications: Record<string, string[]> = {};
    if (dto.notifications?.email) notifications.email = [...new Set(dto.notifications.email)];
    if (dto.notifications?.sms) notifications.sms = [...new Set(dto.notifications.sms)];
    const b = dto.billing_address;
    const tx: Row = {
      session_id: randomHex(20),
      state: 'created',
      version: 1,
      type: dto.type,
      amount: canonical(dto.amount),
      currency_code: dto.currency_code,
      pg_code: dto.pg_codes[0],
      operation: gateway.operation,
      mode: dto.mode ?? 'payment',
      webhook_url: dto.webhook_url ?? '',
      redirect_url: dto.redirect_url ?? '',
      customer_id: dto.customer_id ?? '',
      customer_first_name: dto.customer_first_name ?? '',
      customer_last_name: dto.customer_last_name ?? '',
      customer_email: dto.customer_email ?? '',
      customer_phone: dto.customer_phone ?? '',
      billing_address: b
        ? { line1: b.line1, ...(b.line2 ? { line2: b.line2 } : {}), city: b.city, state: b.state, country: b.country, postal_code: b.postal_code } // prettier-ignore
        : null,
      order_no: dto.order_no || null,
      live_order_no: dto.order_no || null,
      notifications,
      qr_code_token: null,
      payment_type: dto.payment_type ?? 'one_off',
      agreement: null,
      vendor_name: dto.vendor_name ?? '',
      expiration_seconds: expiration,
      email_recipients: dto.email_recipients ?? [],
      extra: dto.extra ?? {},
      product_type: dto.product_type ?? '',
      language: dto.language ?? 'en',
      shortify_attachment_url: dto.shortify_attachment_url ?? false,
      shortify_checkout_url: dto.shortify_checkout_url ?? false,
      checkout_short_url: '',
      attachment_short_url: '',
      attachment_token: null,
      attachment_name: null,
      initiator_id: null,
      api_key_id: 1,
      remarks: null,
      paid_amount: '0',
      captured_amount: '0',
      refunded_amount: '0',
      voided_amount: '0',
      deleted_at: null,
      created_at: now,
      updated_at: now,
      expires_at: new Date(now.getTime() + expiration * 1000),
      attempt_in_flight: null,
      event_sequence: 1,
    };
    const eventId = randomUUID();
    const payload = createdPayload(tx, gateway, currency.digits, eventId, now);
    const context = {
      language: tx.language,
      checkout_url: checkoutUrl(BASE, tx.session_id),
      attachment_url: null,
      merchant_name: 'Checkout',
    };
    const values: unknown[] = COLUMNS.map((c): unknown =>
      JSON_COLUMNS.includes(c) && tx[c] !== null ? JSON.stringify(tx[c]) : tx[c],
    );
    let deliveryId: string | null = null;
    const conn = await pool.getConnection();
    try {
      await conn.beginTransaction();
      const [t] = await conn.query<ResultSetHeader>(INSERT_TRANSACTION, values);
      const [e] = await conn.query<ResultSetHeader>(
        'INSERT INTO events (event_id, transaction_id, session_id, sequence, event, payload, context, created_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?)',
        [
          eventId,
          t.insertId,
          tx.session_id,
          'created',
          JSON.stringify(payload),
          JSON.stringify(context),
          now,
        ],
      );
      if (tx.webhook_url) {
        const [d] = await conn.query<ResultSetHeader>(
          'INSERT INTO deliveries (event_id, channel, target, status, attempts, next_attempt_at, claimed_by, claimed_until, created_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)',
          [
            e.insertId,
            'webhook',
            tx.webhook_url,
            'pending',
            now,
            claimToken,
            new Date(now.getTime() + LEASE_MS),
            now,
          ],
        );
        deliveryId = String(d.insertId);
      }
      await conn.commit();
    } catch (error) {
      await conn.rollback();
      throw error;
    } finally {
      conn.release();
    }
    const sent = deliveryId;
    if (sent) setImmediate(() => send(tx.webhook_url as string, eventId, payload, sent, claimToken));
    res.setHeader('ETag', `"${tx.version}"`);
    return representation(tx, gateway, currency.digits);
  }

  @Get(':session_id')
  async retrieve(
    @Param('session_id') sessionId: string,
    @Headers('if-none-match') _ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Record<string, unknown>> {
    if (!/^[0-9a-f]{40}$/.test(sessionId)) throw new NotFoundException();
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT * FROM transactions WHERE session_id = ? AND deleted_at IS NULL',
      [sessionId],
    );
    const tx = rows[0];
    if (!tx) throw new NotFoundException();
    for (const c of JSON_COLUMNS) if (typeof tx[c] === 'string') tx[c] = JSON.parse(tx[c]);
    const currency = currencies.get(tx.currency_code);
    res.setHeader('ETag', `"${tx.version}"`);
    return representation(tx, gateways.get(tx.pg_code), currency?.digits ?? 2);
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  await loadReferenceData();
  const app = await NestFactory.create(FloorModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => void pool.end());
}

void main();
