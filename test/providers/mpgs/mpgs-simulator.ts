import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Decimal from 'decimal.js';
import { stringify } from 'lossless-json';
import { gatewayCodeFor, MPGS_TEST_CSC_CODES, readCard, resultFor, SimCard } from './mpgs-sim-cards';
import {
  amountField,
  ApiFailure,
  currencyField,
  invalid,
  missing,
  notFound,
  objectField,
  optionalString,
  optionalUrl,
  requiredString,
  scalarText,
} from './mpgs-sim-fields';
import { MpgsNotifier } from './mpgs-sim-notifier';
import { orderView, SimOrder, SimTransaction, tokenView, transactionView } from './mpgs-sim-views';

import { CHECKOUT_SCRIPT, expiredPage, hostedPage } from './mpgs-sim-pages';

export type { SimOrder, SimTransaction } from './mpgs-sim-views';

/** Sleeps `ms` milliseconds. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SimSession {
  id: string;
  version: string;
  successIndicator: string;
  apiVersion: number;
  orderId: string;
  amount: string;
  currency: string;
  description: string | null;
  notificationUrl: string | null;
  operation: 'PURCHASE' | 'AUTHORIZE';
  returnUrl: string | null;
  cancelUrl: string | null;
  merchantName: string | null;
  /** Set once a payment on the hosted page succeeded: the session cannot pay again. */
  paid: boolean;
  card: SimCard | null;
  /** When MPGS expires the session (epoch ms): the hosted page cannot pay after it. */
  expiresAt: number;
  /** `interaction.redirectMerchantUrl` and `interaction.retryAttemptCount`, both or neither. */
  retry: { redirectMerchantUrl: string; retryAttemptCount: number } | null;
  /** Payments declined on this session's page so far. */
  failedPayments: number;
  /** No more payment attempts on this session (its retries are used up). */
  exhausted: boolean;
  /** `sourceOfFunds.provided.card.storedOnFile` of INITIATE CHECKOUT (credential on file). */
  storedOnFile: string | null;
  /** `agreement` of INITIATE CHECKOUT, as sent. */
  agreement: Record<string, unknown> | null;
}

/**
 * "A single session lasts usually about 15 minutes"
 * (https://na.gateway.mastercard.com/api/documentation/integrationGuidelines/hostedSession/sessionBasics.html);
 * INITIATE CHECKOUT: "The gateway automatically expires the session"
 * (https://evopaymentsmexico.gateway.mastercard.com/api/documentation/apiDocumentation/nvp/version/latest/operation/Hosted%20Checkout%3A%20Initiate%20Checkout.html).
 */
export const SIM_SESSION_LIFETIME_MS = 15 * 60_000;

/** A successful payment in the simulator's ledger: money MPGS took (or holds) for an order. */
export interface SimCharge {
  orderId: string;
  transactionId: string;
  type: 'PAYMENT' | 'AUTHORIZATION';
  amount: string;
  currency: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** `apiOperation` of the body, or RETRIEVE_ORDER / RETRIEVE_TRANSACTION / … for reads. */
  operation: string | null;
  apiVersion: number | null;
  /** The username of Basic auth (`merchant.<id>`), or null. */
  user: string | null;
  authenticated: boolean;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface MpgsSimulatorOptions {
  merchantId?: string;
  apiPassword?: string;
  notificationSecret?: string;
}

/** An injected failure: answered instead of the real answer. */
export interface InjectedFailure {
  status: number;
  cause: 'INVALID_REQUEST' | 'REQUEST_REJECTED' | 'SERVER_BUSY' | 'SERVER_FAILED';
  explanation: string;
}

const MAX_API_VERSION = 100;
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, '.000Z');

/**
 * A simulator of the Mastercard Gateway (MPGS) for tests, built from its public documentation:
 * the REST API (version 63 to 100) for Hosted Checkout — INITIATE CHECKOUT, RETRIEVE ORDER,
 * RETRIEVE TRANSACTION, CAPTURE / VOID / REFUND / PAY / AUTHORIZE as `PUT` transaction
 * operations, tokens — plus `checkout.min.js`, the Hosted Payment Page and webhook notifications.
 * https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/v100/rest/api-ops/
 *
 * Modelled from the documentation, each where it is done: a declined payment keeps the payer on
 * the hosted page to try again on the same session and order (unless INITIATE CHECKOUT passed
 * `interaction.redirectMerchantUrl` and `retryAttemptCount`), every try a transaction of its own,
 * each notified; Cancel sends the payer to `cancelUrl` and the session still pays until it
 * expires; sessions expire (about 15 minutes); 3-D Secure started on the page leaves an order with
 * only an AUTHENTICATION transaction; a transaction operation that repeats a transaction id already
 * used is refused.
 *
 * Modelled where the documentation leaves it open (the driver must not depend on these beyond
 * what MPGS documents): unknown orders, transactions, sessions and tokens answer 404 with cause
 * INVALID_REQUEST; a payment whose outcome is UNKNOWN returns the payer to `returnUrl` with a
 * `resultIndicator` that does not match.
 */
export class MpgsSimulator {
  readonly merchantId: string;
  readonly apiPassword: string;
  notificationSecret: string;
  readonly notifier: MpgsNotifier;
  /** Every request to the REST API, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** How many times `checkout.min.js` was served. */
  scriptLoads = 0;
  private server: Server | null = null;
  private baseUrl = '';
  private readonly sessions = new Map<string, SimSession>();
  private readonly orders = new Map<string, SimOrder>();
  private readonly tokens = new Map<string, SimCard>();
  private delay = { ms: 0, remaining: 0 };
  private failures: InjectedFailure[] = [];
  /** Operations refused on every call until lifted ({@link refuseOperation}). */
  private readonly refusals = new Map<string, InjectedFailure>();
  /** Calls (of one operation, or of any) carried out whose answers are then lost ({@link loseAnswers}). */
  private lost: { operation: string | null; remaining: number } = { operation: null, remaining: 0 };
  /** Changes made to the next answer of an operation ({@link alterNextAnswer}). */
  private readonly alterations = new Map<string, (answer: Record<string, unknown>) => void>();
  /** Operations whose answers are held until released ({@link hang}). */
  private readonly hung = new Map<string, Promise<void>>();
  /** How long new sessions live (see {@link SIM_SESSION_LIFETIME_MS}). */
  sessionLifetimeMs = SIM_SESSION_LIFETIME_MS;
  /**
   * Merchant Administration's "Limit session payment attempts" (up to three), which applies when
   * INITIATE CHECKOUT does not pass `interaction.redirectMerchantUrl` and `retryAttemptCount`
   * ("Customize Redirect and Retry Behavior",
   * https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/customizing-the-checkout/customizing-redirect-and-retry-behavior/).
   * Null (the default): the payer may retry until the session expires.
   */
  limitSessionPaymentAttempts: number | null = null;

  constructor(options: MpgsSimulatorOptions = {}) {
    this.merchantId = options.merchantId ?? 'TESTCHECKOUT01';
    this.apiPassword = options.apiPassword ?? `sim-${randomBytes(12).toString('hex')}`;
    this.notificationSecret = options.notificationSecret ?? randomBytes(16).toString('hex').toUpperCase();
    this.notifier = new MpgsNotifier(() => this.notificationSecret);
  }

  /** Starts listening on 127.0.0.1 on a free port. */
  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await this.notifier.settled();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The `api_base_url` setting pointing at this simulator. */
  get url(): string {
    return this.baseUrl;
  }

  /** Settings for an `mpgs` gateway on this simulator. */
  settings(extra: Record<string, unknown> = {}): {
    merchant_id: string;
    api_password: string;
    api_base_url: string;
    notification_secret: string;
    merchant_name: string;
  } & Record<string, unknown> {
    return {
      merchant_id: this.merchantId,
      api_password: this.apiPassword,
      api_base_url: this.baseUrl,
      notification_secret: this.notificationSecret,
      merchant_name: 'Checkout Test Shop',
      ...extra,
    };
  }

  // ---- test controls ------------------------------------------------------------------------

  /** Holds each of the next `count` API answers for `ms` before answering (default: all of them). */
  delayAnswers(ms: number, count = Number.POSITIVE_INFINITY): void {
    this.delay = { ms, remaining: count };
  }

  /** The next `count` API calls get `failure` (default SERVER_BUSY, HTTP 503) instead of their answer. */
  failNext(count: number, failure: Partial<InjectedFailure> = {}): void {
    const cause = failure.cause ?? 'SERVER_BUSY';
    const status = failure.status ?? (cause === 'SERVER_BUSY' ? 503 : cause === 'SERVER_FAILED' ? 500 : 400);
    for (let i = 0; i < count; i++) {
      this.failures.push({ status, cause, explanation: failure.explanation ?? `Simulated ${cause}` });
    }
  }

  /**
   * Every call of `operation` gets `failure` until the returned function lifts it: a merchant
   * profile that lacks a capability refuses it each time it is asked, not once (e.g. CREATE_TOKEN
   * without tokenization enabled, "Tokenization is not enabled"). A second caller (our return and
   * our reconciler both asking) is refused just the same.
   */
  refuseOperation(operation: string, failure: Partial<InjectedFailure> = {}): () => void {
    const cause = failure.cause ?? 'INVALID_REQUEST';
    const status = failure.status ?? 400;
    this.refusals.set(operation, { status, cause, explanation: failure.explanation ?? `Simulated ${cause}` });
    return () => {
      this.refusals.delete(operation);
    };
  }

  /**
   * Every later call of `operation` (e.g. RETRIEVE_ORDER) hangs: the request is read and recorded,
   * and no answer comes until the returned function is called (a gateway that stops answering while
   * its sockets stay open).
   */
  hang(operation: string): () => void {
    let release = () => {};
    this.hung.set(
      operation,
      new Promise<void>((resolve) => {
        release = () => {
          this.hung.delete(operation);
          resolve();
        };
      }),
    );
    return release;
  }

  /**
   * The next `count` calls (of `operation`, or of any) are carried out, then their connection is cut
   * before the answer is written: the gateway did the work and the caller never learns it.
   */
  loseAnswers(count: number, operation: string | null = null): void {
    this.lost = { operation, remaining: count };
  }

  /**
   * A faulty answer: the next answer of `operation` is changed by `alter` after the work was done
   * as asked (e.g. a CAPTURE answered with another amount than MPGS recorded). MPGS documents no
   * such answer: the control tests that nothing is believed that was not asked for.
   */
  alterNextAnswer(operation: string, alter: (answer: Record<string, unknown>) => void): void {
    this.alterations.set(operation, alter);
  }

  /** Ends a session now, as MPGS does when it expires (its page can no longer pay). */
  expireSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`No simulated session ${sessionId}`);
    session.expiresAt = Date.now() - 1;
  }

  /**
   * The simulator's ledger: every successful PAYMENT and AUTHORIZATION, whatever followed it
   * (captures, refunds, voids), for the money audit of the suites.
   */
  charges(): SimCharge[] {
    const found: SimCharge[] = [];
    for (const order of this.orders.values()) {
      for (const t of order.transactions) {
        if (t.result === 'SUCCESS' && (t.type === 'PAYMENT' || t.type === 'AUTHORIZATION')) {
          found.push({
            orderId: order.id,
            transactionId: t.id,
            type: t.type,
            amount: t.amount,
            currency: t.currency,
          });
        }
      }
    }
    return found;
  }

  /** The session's INITIATE CHECKOUT as the simulator keeps it (tests read it). */
  sessionOf(sessionId: string): Readonly<SimSession> | undefined {
    return this.sessions.get(sessionId);
  }

  /** Requests whose operation is `operation`. */
  requestsFor(operation: string): RecordedRequest[] {
    return this.requests.filter((request) => request.operation === operation);
  }

  order(orderId: string): SimOrder | undefined {
    return this.orders.get(orderId);
  }

  /** Changes an order as a bank's back office might (e.g. a capture made in Merchant Administration). */
  setOrderState(
    orderId: string,
    patch: Partial<Pick<SimOrder, 'status' | 'amount' | 'currency'>> & {
      totalAuthorizedAmount?: string;
      totalCapturedAmount?: string;
      totalRefundedAmount?: string;
    },
  ): void {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`No simulated order ${orderId}`);
    const { totalAuthorizedAmount, totalCapturedAmount, totalRefundedAmount, ...plain } = patch;
    Object.assign(order, plain);
    if (totalAuthorizedAmount !== undefined) order.totalAuthorizedAmount = new Decimal(totalAuthorizedAmount);
    if (totalCapturedAmount !== undefined) order.totalCapturedAmount = new Decimal(totalCapturedAmount);
    if (totalRefundedAmount !== undefined) order.totalRefundedAmount = new Decimal(totalRefundedAmount);
  }

  /** The stored card a token stands for (tests read it; the API never shows the number). */
  tokenCard(token: string): SimCard | undefined {
    return this.tokens.get(token);
  }

  /** Changes the expiry a token holds (as CREATE OR UPDATE TOKEN would): `MM/YY` picks the outcome. */
  setTokenExpiry(token: string, expiry: string): void {
    const card = this.tokens.get(token);
    if (!card) throw new Error(`No token ${token}`);
    const [month, year] = expiry.split('/');
    this.tokens.set(token, { ...card, month, year });
  }

  /** The session's `successIndicator` (what a matching `resultIndicator` equals). */
  successIndicatorOf(sessionId: string): string | undefined {
    return this.sessions.get(sessionId)?.successIndicator;
  }

  /**
   * Pays a session as the hosted page does, without a browser: returns where the payer is sent
   * (`returnUrl` with `resultIndicator` and `sessionVersion`).
   */
  payOnHostedPage(sessionId: string, card: { number: string; expiry: string; csc?: string }): string {
    const session = this.payableSession(sessionId);
    if (!session) throw new Error(`Session ${sessionId} cannot pay`);
    const read = readCard(card.number, card.expiry, card.csc ?? '100');
    if ('problem' in read) throw new Error(read.problem);
    return this.payWithCard(session, read.card);
  }

  /**
   * The payer starts 3-D Secure on the hosted page with `card`: the order (created now if it has
   * none) gets an AUTHENTICATION transaction still under way and the status
   * AUTHENTICATION_INITIATED (RETRIEVE ORDER's `order.status`,
   * https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/v100/rest/api-ops/;
   * 3-D Secure authentication is a transaction of the order:
   * https://developer.mastercard.com/mastercard-gateway/documentation/concepts/order-trans-concepts/transaction/).
   * Nothing is paid: a payer who abandons the issuer's page leaves the order as it is, with only
   * authentication transactions. With `outcome: 'failed'` the issuer refused the authentication:
   * the transaction is a FAILURE and the order AUTHENTICATION_UNSUCCESSFUL. Either way the session
   * may still pay until it expires. Returns the hosted page's URL (where the payer may try again).
   */
  authenticateOnHostedPage(
    sessionId: string,
    card: { number: string; expiry: string; csc?: string },
    outcome: 'abandoned' | 'failed' = 'abandoned',
  ): string {
    const session = this.payableSession(sessionId);
    if (!session) throw new Error(`Session ${sessionId} cannot pay`);
    const read = readCard(card.number, card.expiry, card.csc ?? '100');
    if ('problem' in read) throw new Error(read.problem);
    const order = this.sessionOrder(session);
    order.card = read.card;
    const transaction = this.addTransaction(
      order,
      String(order.transactions.length + 1),
      'INITIATE_AUTHENTICATION',
      'AUTHENTICATION',
      order.amount,
      outcome === 'failed' ? 'DECLINED' : 'PENDING',
      null,
      { source: 'INTERNET', gatewayEntryPoint: 'CHECKOUT' },
    );
    if (outcome === 'abandoned') transaction.result = 'PENDING';
    if (!order.transactions.some((t) => t.type === 'PAYMENT' || t.type === 'AUTHORIZATION')) {
      order.status = outcome === 'failed' ? 'AUTHENTICATION_UNSUCCESSFUL' : 'AUTHENTICATION_INITIATED';
    }
    return this.hostedPageUrl(session);
  }

  /** The session when its hosted page can still take a payment: not paid, not expired, not used up. */
  private payableSession(sessionId: string): SimSession | null {
    const session = this.sessions.get(sessionId);
    if (!session || session.paid || session.exhausted || session.expiresAt <= Date.now()) return null;
    return session;
  }

  private hostedPageUrl(session: SimSession): string {
    return `${this.baseUrl}/checkout/pay/${encodeURIComponent(session.id)}`;
  }

  /** The JSON a notification for this transaction carries (the RETRIEVE TRANSACTION answer). */
  transactionJson(orderId: string, transactionId: string): string {
    const order = this.orders.get(orderId);
    const transaction = order?.transactions.find((t) => t.id === transactionId);
    if (!order || !transaction) throw new Error(`No simulated transaction ${orderId}/${transactionId}`);
    return stringify(transactionView(this.merchantId, order, transaction)) as string;
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const body = await readBody(req);
    try {
      if (req.method === 'GET' && url.pathname === '/static/checkout/checkout.min.js') {
        this.scriptLoads++;
        res.writeHead(200, {
          'Content-Type': 'application/javascript; charset=utf-8',
          'Cache-Control': 'no-store',
        });
        res.end(CHECKOUT_SCRIPT);
        return;
      }
      const page = /^\/checkout\/pay\/([^/]+)$/.exec(url.pathname);
      if (page) {
        this.hostedPageRequest(decodeURIComponent(page[1]), req.method ?? 'GET', body, res);
        return;
      }
      const api = /^\/api\/rest\/version\/([^/]+)\/merchant\/([^/]+)(\/.*)?$/.exec(url.pathname);
      if (!api) {
        sendJson(res, 404, {
          result: 'ERROR',
          error: { cause: 'INVALID_REQUEST', explanation: 'Not found' },
        });
        return;
      }
      await this.apiRequest(
        req,
        res,
        decodeURIComponent(api[1]),
        decodeURIComponent(api[2]),
        api[3] ?? '',
        body,
      );
    } catch (error) {
      if (!res.headersSent)
        sendJson(res, 500, {
          result: 'ERROR',
          error: { cause: 'SERVER_FAILED', explanation: String(error) },
        });
    }
  }

  private async apiRequest(
    req: IncomingMessage,
    res: ServerResponse,
    versionText: string,
    merchantId: string,
    rest: string,
    rawBody: string,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    const segments = rest.split('/').filter(Boolean).map(decodeURIComponent);
    const user = basicUser(req.headers.authorization);
    const authenticated =
      user !== null &&
      user.name === `merchant.${merchantId}` &&
      merchantId === this.merchantId &&
      user.password === this.apiPassword;
    let body: Record<string, unknown> = {};
    let bodyProblem: ApiFailure | null = null;
    if (rawBody.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(rawBody);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
        else bodyProblem = new ApiFailure(400, 'INVALID_REQUEST', 'Request body must be a JSON object');
      } catch {
        bodyProblem = new ApiFailure(400, 'INVALID_REQUEST', 'Invalid JSON in request body');
      }
    }
    const apiVersion = /^\d+$/.test(versionText) ? Number(versionText) : null;
    const operation =
      typeof body.apiOperation === 'string' ? body.apiOperation : readOperation(method, segments);
    this.requests.push({
      method,
      path: new URL(req.url ?? '/', 'http://simulator.invalid').pathname,
      operation,
      apiVersion,
      user: user?.name ?? null,
      authenticated,
      body: rawBody.trim() === '' ? null : body,
      headers: { ...req.headers, authorization: req.headers.authorization ? '[present]' : undefined },
    });

    if (this.delay.remaining > 0) {
      this.delay.remaining--;
      await pause(this.delay.ms);
    }
    const hung = this.hung.get(operation ?? '');
    if (hung) await hung;
    const injected = this.refusals.get(operation ?? '') ?? this.failures.shift();
    if (injected) {
      sendJson(res, injected.status, {
        result: 'ERROR',
        error: { cause: injected.cause, explanation: injected.explanation },
      });
      return;
    }
    try {
      if (!authenticated) throw new ApiFailure(401, 'INVALID_REQUEST', 'Invalid credentials.');
      if (apiVersion === null || apiVersion < 1 || apiVersion > MAX_API_VERSION) {
        throw new ApiFailure(404, 'INVALID_REQUEST', `Unsupported API version '${versionText}'`);
      }
      if (bodyProblem) throw bodyProblem;
      const [status, answer] = this.route(method, segments, body, apiVersion);
      const alter = this.alterations.get(operation ?? '');
      if (alter && answer && typeof answer === 'object') {
        this.alterations.delete(operation ?? '');
        alter(answer as Record<string, unknown>);
      }
      if (this.lost.remaining > 0 && (this.lost.operation === null || this.lost.operation === operation)) {
        this.lost.remaining--;
        res.socket?.destroy();
        return;
      }
      sendJson(res, status, answer);
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      sendJson(res, error.status, {
        result: 'ERROR',
        error: {
          cause: error.errorCause,
          explanation: error.explanation,
          ...(error.field ? { field: error.field } : {}),
          ...(error.validationType ? { validationType: error.validationType } : {}),
        },
      });
    }
  }

  private route(
    method: string,
    segments: string[],
    body: Record<string, unknown>,
    apiVersion: number,
  ): [number, unknown] {
    const [resource, id, sub, subId] = segments;
    if (resource === 'session' && segments.length === 1 && method === 'POST') {
      return [201, this.initiateCheckout(body, apiVersion)];
    }
    if (resource === 'session' && segments.length === 2 && method === 'GET') {
      const session = this.sessions.get(id);
      if (!session || session.expiresAt <= Date.now()) throw notFound('session');
      return [
        200,
        {
          session: { id: session.id, version: session.version, updateStatus: 'NO_UPDATE' },
          merchant: this.merchantId,
        },
      ];
    }
    if (resource === 'order' && segments.length === 2 && method === 'GET') {
      const order = this.orders.get(id);
      if (!order) throw notFound('order');
      return [200, orderView(this.merchantId, order)];
    }
    if (resource === 'order' && sub === 'transaction' && segments.length === 4) {
      if (method === 'PUT') return this.transactionOperation(id, subId, body);
      if (method === 'GET') {
        const order = this.orders.get(id);
        const transaction = order?.transactions.find((t) => t.id === subId);
        if (!order || !transaction) throw notFound('transaction');
        return [200, transactionView(this.merchantId, order, transaction)];
      }
    }
    if (resource === 'token' && segments.length === 1 && method === 'POST')
      return [201, this.createToken(body)];
    if (resource === 'token' && segments.length === 2) {
      const card = this.tokens.get(id);
      if (!card) throw notFound('token');
      if (method === 'GET') return [200, tokenView(id, card)];
      if (method === 'DELETE') {
        this.tokens.delete(id);
        return [200, { result: 'SUCCESS' }];
      }
    }
    throw new ApiFailure(404, 'INVALID_REQUEST', `Unsupported request ${method} ${segments.join('/')}`);
  }

  // ---- operations ----------------------------------------------------------------------------

  /** INITIATE CHECKOUT (API version 63 and later). */
  private initiateCheckout(body: Record<string, unknown>, apiVersion: number): unknown {
    if (body.apiOperation !== 'INITIATE_CHECKOUT') {
      throw invalid('apiOperation', `Value '${String(body.apiOperation)}' is invalid for this resource`);
    }
    if (apiVersion < 63) throw invalid('apiOperation', 'INITIATE_CHECKOUT requires API version 63 or later');
    const order = objectField(body, 'order');
    const interaction = objectField(body, 'interaction');
    const orderId = requiredString(order, 'order.id', 'id');
    if (orderId.length > 40) throw invalid('order.id', 'Value must be at most 40 characters');
    const currency = currencyField(order, 'order.currency');
    const amount = amountField(order, 'order.amount', currency);
    const operation = requiredString(interaction, 'interaction.operation', 'operation');
    if (operation !== 'PURCHASE' && operation !== 'AUTHORIZE') {
      throw new ApiFailure(
        400,
        'INVALID_REQUEST',
        `Value '${operation}' is not supported`,
        'interaction.operation',
        'UNSUPPORTED',
      );
    }
    const returnUrl = optionalUrl(interaction, 'interaction.returnUrl', 'returnUrl');
    const cancelUrl = optionalUrl(interaction, 'interaction.cancelUrl', 'cancelUrl');
    const notificationUrl = optionalUrl(order, 'order.notificationUrl', 'notificationUrl');
    const description = optionalString(order, 'order.description', 'description', 127);
    const merchant = interaction.merchant;
    const merchantName =
      merchant && typeof merchant === 'object'
        ? optionalString(merchant as Record<string, unknown>, 'interaction.merchant.name', 'name', 40)
        : null;
    const retry = readRetryBehaviour(interaction);
    const provided = (
      (body.sourceOfFunds as Record<string, unknown> | undefined)?.provided as
        Record<string, unknown> | undefined
    )?.card as Record<string, unknown> | undefined;
    const storedOnFile =
      provided?.storedOnFile === undefined ? null : storedOnFileField(provided.storedOnFile);
    const agreement = body.agreement === undefined ? null : agreementField(body.agreement);
    const existing = this.orders.get(orderId);
    if (existing && existing.transactions.some((t) => t.result === 'SUCCESS')) {
      throw new ApiFailure(
        400,
        'INVALID_REQUEST',
        'Order already has a successful payment',
        'order.id',
        'INVALID',
      );
    }
    const session: SimSession = {
      id: `SESSION0002${randomBytes(10).toString('hex').toUpperCase()}`,
      version: randomBytes(5).toString('hex'),
      successIndicator: randomBytes(8).toString('hex'),
      apiVersion,
      orderId,
      amount,
      currency,
      description,
      notificationUrl,
      operation,
      returnUrl,
      cancelUrl,
      merchantName,
      paid: false,
      card: null,
      expiresAt: Date.now() + this.sessionLifetimeMs,
      retry,
      failedPayments: 0,
      exhausted: false,
      storedOnFile,
      agreement,
    };
    this.sessions.set(session.id, session);
    return {
      checkoutMode: 'WEBSITE',
      merchant: this.merchantId,
      result: 'SUCCESS',
      session: { id: session.id, updateStatus: 'SUCCESS', version: session.version },
      successIndicator: session.successIndicator,
    };
  }

  /** A PUT on `order/{orderId}/transaction/{transactionId}`. */
  private transactionOperation(
    orderId: string,
    transactionId: string,
    body: Record<string, unknown>,
  ): [number, unknown] {
    if (orderId.length > 40) throw invalid('order.id', 'Value must be at most 40 characters');
    if (transactionId.length > 40) throw invalid('transaction.id', 'Value must be at most 40 characters');
    const apiOperation = typeof body.apiOperation === 'string' ? body.apiOperation : null;
    if (!apiOperation) throw missing('apiOperation');
    const existingOrder = this.orders.get(orderId);
    // MPGS identifies a transaction by its order id and transaction id, and nowhere documents that a
    // transaction operation sent again with an id already used answers the first outcome
    // (https://developer.mastercard.com/mastercard-gateway/documentation/concepts/order-trans-concepts/identifiers/):
    // the simulator refuses it, whatever the operation, and the first transaction stands. Whoever
    // lost the first answer learns it with RETRIEVE ORDER or RETRIEVE TRANSACTION.
    if (existingOrder?.transactions.some((t) => t.id === transactionId)) {
      throw invalid('transaction.id', `Transaction ID '${transactionId}' is already used on this order`);
    }
    switch (apiOperation) {
      case 'PAY':
      case 'AUTHORIZE':
        return [201, this.tokenPayment(orderId, transactionId, apiOperation, body)];
      case 'CAPTURE':
      case 'REFUND':
      case 'VOID': {
        if (!existingOrder) throw notFound('order');
        return [201, this.followUp(existingOrder, transactionId, apiOperation, body)];
      }
      default:
        throw new ApiFailure(
          400,
          'INVALID_REQUEST',
          `Value '${apiOperation}' is not supported`,
          'apiOperation',
          'UNSUPPORTED',
        );
    }
  }

  /** PAY / AUTHORIZE with `sourceOfFunds.token` (merchant-initiated, a saved card). */
  private tokenPayment(
    orderId: string,
    transactionId: string,
    apiOperation: 'PAY' | 'AUTHORIZE',
    body: Record<string, unknown>,
  ): unknown {
    const orderInput = objectField(body, 'order');
    const currency = currencyField(orderInput, 'order.currency');
    const amount = amountField(orderInput, 'order.amount', currency);
    const sourceOfFunds = objectField(body, 'sourceOfFunds');
    const token = requiredString(sourceOfFunds, 'sourceOfFunds.token', 'token');
    const stored = this.tokens.get(token);
    if (!stored) throw invalid('sourceOfFunds.token', `Value '${token}' is not a valid token`);
    const provided = ((sourceOfFunds.provided as Record<string, unknown> | undefined)?.card ?? {}) as Record<
      string,
      unknown
    >;
    if (provided.storedOnFile !== undefined) storedOnFileField(provided.storedOnFile);
    if (body.agreement !== undefined) agreementField(body.agreement);
    const securityCode = provided.securityCode;
    if (securityCode !== undefined && !/^\d{3,4}$/.test(scalarText(securityCode)))
      throw invalid('sourceOfFunds.provided.card.securityCode', 'Value is invalid');
    const card = securityCode === undefined ? stored : { ...stored, csc: scalarText(securityCode) };
    const existing = this.orders.get(orderId);
    if (existing && existing.transactions.some((t) => t.result === 'SUCCESS')) {
      throw invalid('order.id', 'Order already has a successful payment');
    }
    const source =
      (body.transaction as Record<string, unknown> | undefined)?.source === 'MERCHANT'
        ? 'MERCHANT'
        : 'INTERNET';
    const order = existing ?? this.newOrder(orderId, amount, currency, null, null);
    order.amount = amount;
    order.currency = currency;
    order.card = card;
    order.token = token;
    const notificationUrl = optionalUrl(orderInput, 'order.notificationUrl', 'notificationUrl');
    if (notificationUrl) order.notificationUrl = notificationUrl;
    const transaction = this.initialTransaction(
      order,
      transactionId,
      apiOperation === 'PAY' ? 'PURCHASE' : 'AUTHORIZE',
      card,
      {
        apiOperation,
        source,
        gatewayEntryPoint: 'WEB_SERVICES_API',
        storedOnFile: provided.storedOnFile === undefined ? null : scalarText(provided.storedOnFile),
        agreement: (body.agreement as Record<string, unknown> | undefined) ?? null,
      },
    );
    return transactionView(this.merchantId, order, transaction);
  }

  /** CAPTURE, REFUND or VOID on an existing order. */
  private followUp(
    order: SimOrder,
    transactionId: string,
    apiOperation: 'CAPTURE' | 'REFUND' | 'VOID',
    body: Record<string, unknown>,
  ): unknown {
    const input = objectField(body, 'transaction');
    let transaction: SimTransaction;
    if (apiOperation === 'VOID') {
      const targetId = requiredString(input, 'transaction.targetTransactionId', 'targetTransactionId');
      const target = order.transactions.find((t) => t.id === targetId && t.result === 'SUCCESS');
      if (!target)
        throw invalid(
          'transaction.targetTransactionId',
          `No successful transaction '${targetId}' on this order`,
        );
      if (order.transactions.some((t) => t.targetTransactionId === targetId && t.type.startsWith('VOID'))) {
        throw new ApiFailure(400, 'INVALID_REQUEST', 'Transaction has already been voided');
      }
      const type =
        target.type === 'AUTHORIZATION'
          ? 'VOID_AUTHORIZATION'
          : target.type === 'CAPTURE'
            ? 'VOID_CAPTURE'
            : target.type === 'REFUND'
              ? 'VOID_REFUND'
              : null;
      if (!type) throw new ApiFailure(400, 'INVALID_REQUEST', `A ${target.type} cannot be voided`);
      if (type === 'VOID_AUTHORIZATION' && order.totalCapturedAmount.gt(0)) {
        throw new ApiFailure(400, 'INVALID_REQUEST', 'Authorization has captures and cannot be voided');
      }
      transaction = this.addTransaction(
        order,
        transactionId,
        apiOperation,
        type,
        target.amount,
        'APPROVED',
        targetId,
      );
      if (type === 'VOID_AUTHORIZATION') order.status = 'CANCELLED';
      if (type === 'VOID_CAPTURE') order.totalCapturedAmount = order.totalCapturedAmount.minus(target.amount);
      if (type === 'VOID_REFUND') order.totalRefundedAmount = order.totalRefundedAmount.minus(target.amount);
      if (type !== 'VOID_AUTHORIZATION') order.status = this.settledStatus(order);
    } else {
      const currency = currencyField(input, 'transaction.currency');
      if (currency !== order.currency)
        throw invalid('transaction.currency', `Value must be the order currency ${order.currency}`);
      const amount = new Decimal(amountField(input, 'transaction.amount', currency));
      if (apiOperation === 'CAPTURE') {
        if (!['AUTHORIZED', 'PARTIALLY_CAPTURED'].includes(order.status)) {
          throw new ApiFailure(400, 'INVALID_REQUEST', `Order in status ${order.status} cannot be captured`);
        }
        if (amount.gt(order.totalAuthorizedAmount.minus(order.totalCapturedAmount))) {
          throw invalid(
            'transaction.amount',
            'Requested capture amount exceeds outstanding authorized amount',
          );
        }
        transaction = this.addTransaction(
          order,
          transactionId,
          apiOperation,
          'CAPTURE',
          amount.toFixed(),
          'APPROVED',
          null,
        );
        order.totalCapturedAmount = order.totalCapturedAmount.plus(amount);
      } else {
        if (!['CAPTURED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED'].includes(order.status)) {
          throw new ApiFailure(400, 'INVALID_REQUEST', `Order in status ${order.status} cannot be refunded`);
        }
        if (amount.gt(order.totalCapturedAmount.minus(order.totalRefundedAmount))) {
          throw invalid('transaction.amount', 'Requested refund amount exceeds outstanding captured amount');
        }
        transaction = this.addTransaction(
          order,
          transactionId,
          apiOperation,
          'REFUND',
          amount.toFixed(),
          'APPROVED',
          null,
        );
        order.totalRefundedAmount = order.totalRefundedAmount.plus(amount);
      }
      order.status = this.settledStatus(order);
    }
    this.notifyTransaction(order, transaction);
    return transactionView(this.merchantId, order, transaction);
  }

  /** The status an order with successful money movements has. */
  private settledStatus(order: SimOrder): string {
    const {
      totalAuthorizedAmount: authorized,
      totalCapturedAmount: captured,
      totalRefundedAmount: refunded,
    } = order;
    if (refunded.gt(0)) return refunded.gte(captured) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    if (captured.gt(0)) return captured.gte(authorized) ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
    return authorized.gt(0) ? 'AUTHORIZED' : order.status;
  }

  /** CREATE OR UPDATE TOKEN (system-generated): from a paid checkout session, or from card fields. */
  private createToken(body: Record<string, unknown>): unknown {
    let card: SimCard;
    const session = body.session as Record<string, unknown> | undefined;
    if (session && typeof session === 'object') {
      const sessionId = requiredString(session, 'session.id', 'id');
      const found = this.sessions.get(sessionId);
      if (!found) throw invalid('session.id', `Value '${sessionId}' is not a valid session`);
      if (!found.card) throw invalid('session.id', 'Session does not contain card details');
      card = found.card;
    } else {
      const provided = (
        (body.sourceOfFunds as Record<string, unknown> | undefined)?.provided as
          Record<string, unknown> | undefined
      )?.card as Record<string, unknown> | undefined;
      if (!provided) throw missing('session.id');
      const expiry = (provided.expiry ?? {}) as Record<string, unknown>;
      const read = readCard(
        scalarText(provided.number),
        `${scalarText(expiry.month)}/${scalarText(expiry.year)}`,
        '',
      );
      if ('problem' in read) throw invalid('sourceOfFunds.provided.card.number', read.problem);
      card = read.card;
    }
    // The repository's "Unique Account Identifier" management: a card already stored keeps its
    // token (its details updated); a new one gets a random token.
    const stored = [...this.tokens].find(([, known]) => known.number === card.number)?.[0];
    const token = stored ?? `9${Array.from(randomBytes(15), (b) => String(b % 10)).join('')}`;
    this.tokens.set(token, card);
    return tokenView(token, card);
  }

  // ---- hosted page ---------------------------------------------------------------------------

  /**
   * The Hosted Payment Page of a session. A session serves its page until it is paid, used up or
   * expired ("The gateway automatically expires the session"): a payer who pressed Cancel (sent to
   * `interaction.cancelUrl`) may come back to the same session and pay on it, since nothing ends a
   * checkout session but its expiry (MPGS documents no operation that does).
   */
  private hostedPageRequest(sessionId: string, method: string, rawBody: string, res: ServerResponse): void {
    const session = this.payableSession(sessionId);
    if (!session) {
      res.writeHead(410, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(expiredPage());
      return;
    }
    const render = (problem: string | null, status = 200) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(
        hostedPage({
          sessionId,
          merchantName: session.merchantName ?? this.merchantId,
          amount: session.amount,
          currency: session.currency,
          description: session.description,
          problem,
        }),
      );
    };
    if (method === 'GET') return render(null);
    if (method !== 'POST') return render('Unsupported request.', 405);
    const form = new URLSearchParams(rawBody);
    if (form.get('action') === 'cancel') {
      const target = session.cancelUrl ?? session.returnUrl;
      if (!target) return render('Payment cancelled.');
      res.writeHead(303, { Location: target });
      res.end();
      return;
    }
    const read = readCard(
      form.get('cardNumber') ?? '',
      form.get('expiry') ?? '',
      form.get('securityCode') ?? '',
    );
    if ('problem' in read) return render(read.problem, 400);
    const next = this.payOnPage(session, read.card);
    if (next.kind === 'stay') return render(next.problem);
    res.writeHead(303, { Location: next.url });
    res.end();
  }

  /** Pays a session as its page does, without a browser: where the payer is next (see {@link payOnPage}). */
  private payWithCard(session: SimSession, card: SimCard): string {
    const next = this.payOnPage(session, card);
    return next.kind === 'redirect' ? next.url : this.hostedPageUrl(session);
  }

  /**
   * Runs the session's PAY or AUTHORIZE with `card` on the order the session names (each try is a
   * new transaction of that order, each notified), then where the payer goes:
   * - approved: to `interaction.returnUrl` with `resultIndicator` = the session's `successIndicator`
   *   (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/interpreting-the-response/);
   * - declined: the payer stays on the page to try again, unless INITIATE CHECKOUT passed
   *   `interaction.redirectMerchantUrl` and `interaction.retryAttemptCount` and the retries are
   *   used up — then to `redirectMerchantUrl`, and the session takes no more payments; Merchant
   *   Administration's "Limit session payment attempts" ({@link limitSessionPaymentAttempts}) ends
   *   the session's attempts without a redirect ("Customize Redirect and Retry Behavior",
   *   https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/customizing-the-checkout/customizing-redirect-and-retry-behavior/);
   * - not decided (`UNKNOWN`): back to `returnUrl` with an indicator that does not match.
   */
  private payOnPage(
    session: SimSession,
    card: SimCard,
  ): { kind: 'redirect'; url: string } | { kind: 'stay'; problem: string } {
    const order = this.sessionOrder(session);
    order.card = card;
    const transactionId = String(order.transactions.length + 1);
    const transaction = this.initialTransaction(order, transactionId, session.operation, card, {
      apiOperation: session.operation === 'PURCHASE' ? 'PAY' : 'AUTHORIZE',
      source: 'INTERNET',
      gatewayEntryPoint: 'CHECKOUT',
      storedOnFile: session.storedOnFile,
    });
    session.card = card;
    const back = (url: string, matching: boolean) => {
      const target = new URL(url);
      target.searchParams.set(
        'resultIndicator',
        matching ? session.successIndicator : randomBytes(8).toString('hex'),
      );
      target.searchParams.set('sessionVersion', session.version);
      target.searchParams.set('checkoutVersion', '1.0.0');
      return { kind: 'redirect' as const, url: target.toString() };
    };
    const returnUrl = session.returnUrl ?? `${this.baseUrl}/checkout/done`;
    if (transaction.result === 'SUCCESS') {
      session.paid = true;
      return back(returnUrl, true);
    }
    if (transaction.result !== 'FAILURE') return back(returnUrl, false);
    session.failedPayments++;
    if (session.retry) {
      if (session.failedPayments > session.retry.retryAttemptCount) {
        session.exhausted = true;
        return back(session.retry.redirectMerchantUrl, false);
      }
    } else if (
      this.limitSessionPaymentAttempts !== null &&
      session.failedPayments >= this.limitSessionPaymentAttempts
    ) {
      session.exhausted = true;
      return { kind: 'stay', problem: 'Your payment was declined. No more attempts are allowed.' };
    }
    return { kind: 'stay', problem: 'Your payment was declined. Try again or use another card.' };
  }

  /** The order a checkout session pays (created on its first payment or authentication). */
  private sessionOrder(session: SimSession): SimOrder {
    const order =
      this.orders.get(session.orderId) ??
      this.newOrder(
        session.orderId,
        session.amount,
        session.currency,
        session.description,
        session.notificationUrl,
      );
    order.amount = session.amount;
    order.currency = session.currency;
    order.description = session.description;
    order.notificationUrl = session.notificationUrl ?? order.notificationUrl;
    return order;
  }

  // ---- order book ----------------------------------------------------------------------------

  private newOrder(
    id: string,
    amount: string,
    currency: string,
    description: string | null,
    notificationUrl: string | null,
  ): SimOrder {
    const order: SimOrder = {
      id,
      amount,
      currency,
      description,
      notificationUrl,
      status: 'INITIATED',
      totalAuthorizedAmount: new Decimal(0),
      totalCapturedAmount: new Decimal(0),
      totalRefundedAmount: new Decimal(0),
      creationTime: now(),
      card: null,
      token: null,
      transactions: [],
    };
    this.orders.set(id, order);
    return order;
  }

  /** The first money movement of an order: PAYMENT (PURCHASE) or AUTHORIZATION (AUTHORIZE). */
  private initialTransaction(
    order: SimOrder,
    transactionId: string,
    operation: 'PURCHASE' | 'AUTHORIZE',
    card: SimCard,
    how: {
      apiOperation: string;
      source: 'INTERNET' | 'MERCHANT';
      gatewayEntryPoint: 'CHECKOUT' | 'WEB_SERVICES_API';
      storedOnFile?: string | null;
      agreement?: Record<string, unknown> | null;
    },
  ): SimTransaction {
    const gatewayCode = gatewayCodeFor(card);
    const type = operation === 'PURCHASE' ? 'PAYMENT' : 'AUTHORIZATION';
    const transaction = this.addTransaction(
      order,
      transactionId,
      how.apiOperation,
      type,
      order.amount,
      gatewayCode,
      null,
      how,
    );
    transaction.cscCode = card.csc ? (MPGS_TEST_CSC_CODES[card.csc] ?? 'NO_MATCH') : null;
    transaction.storedOnFile = how.storedOnFile ?? null;
    transaction.agreement = how.agreement ?? null;
    if (transaction.result === 'SUCCESS') {
      order.totalAuthorizedAmount = new Decimal(order.amount);
      if (type === 'PAYMENT') order.totalCapturedAmount = new Decimal(order.amount);
      order.status = type === 'PAYMENT' ? 'CAPTURED' : 'AUTHORIZED';
    } else {
      order.status = transaction.result === 'UNKNOWN' ? 'INITIATED' : 'FAILED';
    }
    this.notifyTransaction(order, transaction);
    return transaction;
  }

  private addTransaction(
    order: SimOrder,
    id: string,
    apiOperation: string,
    type: string,
    amount: string,
    gatewayCode: string,
    targetTransactionId: string | null,
    how: { source: 'INTERNET' | 'MERCHANT'; gatewayEntryPoint: 'CHECKOUT' | 'WEB_SERVICES_API' } = {
      source: 'MERCHANT',
      gatewayEntryPoint: 'WEB_SERVICES_API',
    },
  ): SimTransaction {
    const result = resultFor(gatewayCode);
    const transaction: SimTransaction = {
      id,
      apiOperation,
      type,
      result,
      gatewayCode,
      amount,
      currency: order.currency,
      source: how.source,
      gatewayEntryPoint: how.gatewayEntryPoint,
      targetTransactionId,
      authorizationCode:
        result === 'SUCCESS' && (type === 'PAYMENT' || type === 'AUTHORIZATION')
          ? String(100000 + Math.floor(Math.random() * 900000))
          : null,
      receipt: Array.from(randomBytes(12), (b) => String(b % 10)).join(''),
      timeOfRecord: now(),
      cscCode: null,
      storedOnFile: null,
      agreement: null,
    };
    order.transactions.push(transaction);
    return transaction;
  }

  private notifyTransaction(order: SimOrder, transaction: SimTransaction): void {
    this.notifier.notify(
      order.notificationUrl,
      stringify(transactionView(this.merchantId, order, transaction)) as string,
    );
  }
}

/**
 * `interaction.redirectMerchantUrl` and `interaction.retryAttemptCount` of INITIATE CHECKOUT
 * ("Customize Redirect and Retry Behavior",
 * https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/customizing-the-checkout/customizing-redirect-and-retry-behavior/):
 * after a failed payment the merchant may "always redirect customers", "allow up to three retry
 * attempts before redirecting", or "disable redirects entirely"; "the payer redirects to the
 * merchant portal only if both the new variables are passed". Null when not both are given: the
 * payer then stays on the page to try again.
 */
function readRetryBehaviour(
  interaction: Record<string, unknown>,
): { redirectMerchantUrl: string; retryAttemptCount: number } | null {
  const url = optionalUrl(interaction, 'interaction.redirectMerchantUrl', 'redirectMerchantUrl');
  const count = interaction.retryAttemptCount;
  if (
    count !== undefined &&
    (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 3)
  )
    throw invalid('interaction.retryAttemptCount', 'Value must be a whole number from 0 to 3');
  return url !== null && typeof count === 'number'
    ? { redirectMerchantUrl: url, retryAttemptCount: count }
    : null;
}

/**
 * `sourceOfFunds.provided.card.storedOnFile`: NOT_STORED, TO_BE_STORED (the payer agrees to store
 * the card: the first payment) or STORED (a payment with a card stored before) ("Credential on
 * File Transactions",
 * https://developer.mastercard.com/mastercard-gateway/documentation/security-and-fraud/cred-file-transc/).
 */
function storedOnFileField(value: unknown): string {
  const text = scalarText(value);
  if (!['NOT_STORED', 'STORED', 'TO_BE_STORED'].includes(text))
    throw invalid('sourceOfFunds.provided.card.storedOnFile', `Value '${text}' is invalid`);
  return text;
}

/**
 * `agreement` of a payment in a series (credential on file, page above): `id` (up to 100
 * characters) and `type` (RECURRING, INSTALLMENT, UNSCHEDULED, OTHER).
 */
function agreementField(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalid('agreement', "Value for 'agreement' must be an object");
  const agreement = value as Record<string, unknown>;
  const id = requiredString(agreement, 'agreement.id', 'id');
  if (id.length > 100) throw invalid('agreement.id', 'Value must be at most 100 characters');
  const type = requiredString(agreement, 'agreement.type', 'type');
  if (!['RECURRING', 'INSTALLMENT', 'UNSCHEDULED', 'OTHER'].includes(type))
    throw invalid('agreement.type', `Value '${type}' is invalid`);
  return agreement;
}

function readOperation(method: string, segments: string[]): string | null {
  const [resource, , sub] = segments;
  if (method === 'GET' && resource === 'order')
    return sub === 'transaction' ? 'RETRIEVE_TRANSACTION' : 'RETRIEVE_ORDER';
  if (method === 'GET' && resource === 'session') return 'RETRIEVE_SESSION';
  if (resource === 'token')
    return method === 'GET' ? 'RETRIEVE_TOKEN' : method === 'DELETE' ? 'DELETE_TOKEN' : 'CREATE_TOKEN';
  return null;
}

function basicUser(header: string | undefined): { name: string; password: string } | null {
  const match = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = stringify(body) as string;
  res.writeHead(status, {
    'Content-Type': 'application/json;charset=UTF-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A random id for transactions Checkout would create (tests). */
export function newTransactionId(): string {
  return randomUUID().replace(/-/g, '').slice(0, 32);
}
