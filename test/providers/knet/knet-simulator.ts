import { randomInt } from 'node:crypto';
import { createServer, IncomingMessage, request as httpRequest, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decryptTrandata, encryptTrandata } from '../../../src/payments/providers/knet/knet-crypto';

/**
 * A KNET payment gateway on 127.0.0.1 (random port), built from KNET's public integration
 * material (docs/gateways/knet.md lists it): the RAW merchant integration of the *Merchant
 * Integration Manual* K-064 v1.4.
 *
 * - `GET|POST /kpg/PaymentHTTP.htm?param=paymentInit&trandata=…&tranportalId=…` — payment
 *   initialization: decrypts `trandata` with the terminal's resource key and checks it; errors
 *   go to the errorURL as `Error`/`ErrorText` (K-064 §10 codes); success redirects to the page.
 * - `GET /kpg/paymentpage.htm?PaymentID=…` — the hosted page: bank, card number, expiry, PIN;
 *   Submit / Cancel. `POST` of that form processes the card, posts the encrypted result to the
 *   responseURL (URL-encoded `paymentid`, `trackid`, `trandata`), reads the merchant's
 *   `REDIRECT=<url>` line and redirects the customer there; a missing or wrong line reverses a
 *   captured payment and shows KNET's error (K-064 §5, §9.2.1).
 * - `POST /kpg/tranPipe.htm?param=tranInit` — XML inquiry (action 8) and refund (action 2).
 *
 * Test cards (K-064 §4): bank "KNET Test Card [KNET1]", card 8888880000000001, expiry month 09 →
 * CAPTURED, any other expiry → NOT CAPTURED, any 4-digit PIN. Simulator-only: card
 * 8888880000000002 → HOST TIMEOUT.
 *
 * The edges a merchant meets at KNET (contract §20.1), each from the source cited where it is done:
 * - tranPipe's `transid` holds at most 19 characters (K-064 §3.5.4 "Trans ID … 19"), and an inquiry
 *   or refund by track id sends the track id there (§3.5.3's table, §3.7.2): a longer one gets
 *   KNET's error answer, never the transaction ({@link tranPipe});
 * - while the customer is still on the page, inquiry answers `INITIATED` ({@link initiatedResult});
 * - the result is posted as a form (`paymentid`, `trackid`, `trandata`; §3.5.2, §3.6.1's sample) or
 *   as the bare `trandata` hex, the raw body KNET's own kit reads ({@link resultPost});
 * - the errorURL link (`?Error=…&ErrorText=…&trackid=…&paymentid=…`) while the page stays open and
 *   payable: a second tab on the page ({@link page}, `IPAY0100040`), or {@link errorLink};
 * - a captured payment is reversed when the merchant's answer to the result post is not the line
 *   `REDIRECT=<url>` within {@link notifyTimeoutMs} (§5, §9.2.1; {@link submit});
 * - KNET's error answers to an inquiry (`!ERROR!-IPAY…`; {@link failNext} with a code);
 * - the page's time limit (§10 `IPAY0100042` *Transaction time limit exceeds*; {@link pageLimitMs}).
 *
 * Test controls: {@link delay}, {@link failNext}, {@link resendNotification},
 * {@link postToResponseUrl} (forged, altered or bare posts), {@link errorLink}, {@link requests},
 * {@link setState}, {@link ledger} (the money audit).
 */

export interface SimTerminal {
  tranportalId: string;
  password: string;
  resourceKey: string;
  /** The acquirer permits refunds (action 2) on this terminal. */
  refunds: boolean;
  /** This terminal's page time limit, instead of {@link KnetSimulator.pageLimitMs}. */
  pageLimitMs?: number;
}

export type SimResult = 'CAPTURED' | 'NOT CAPTURED' | 'CANCELED' | 'HOST TIMEOUT';
/**
 * INITIALIZED: the customer has not submitted the page (inquiry: {@link KnetSimulator.initiatedResult});
 * REVERSED: KNET voided it (no merchant ack).
 */
export type SimState = 'INITIALIZED' | SimResult | 'REVERSED';

export interface SimRefund {
  paymentId: string;
  tranId: string;
  amount: string;
}

export interface SimPayment {
  paymentId: string;
  trackId: string;
  amount: string;
  terminal: SimTerminal;
  responseUrl: string;
  errorUrl: string;
  language: string;
  udfs: Record<string, string>;
  state: SimState;
  tranId: string;
  ref: string;
  auth: string;
  postDate: string;
  authRespCode: string;
  refunds: SimRefund[];
  /** Every post to the responseURL and what the merchant answered. */
  notifications: SimNotification[];
  /** When KNET opened the page (the initialization): its time limit runs from here. */
  openedAt: number;
  /** How often the page was loaded: a second load is another tab (`IPAY0100040`). */
  views: number;
}

export interface SimNotification {
  body: string;
  contentType: string;
  status: number | null;
  reply: string;
  error?: string;
}

export type SimEndpoint = 'init' | 'page' | 'submit' | 'inquiry' | 'refund';

export interface SimRequest {
  endpoint: SimEndpoint | 'unknown';
  method: string;
  path: string;
  /** The fields received; for init, the decrypted `trandata` fields as well. */
  fields: Record<string, string>;
  contentType: string;
}

/**
 * `error`: KNET's error answer (`!ERROR!-IPAY0100038-…` or the code given, or the errorURL for init);
 * `http500`: an HTTP 500; `drop`: the connection is closed without an answer;
 * `drop_after` (inquiry, refund): the request is carried out, then the answer is lost;
 * `no_notification` (submit): KNET cannot reach the responseURL.
 */
export type SimFailure = 'error' | 'http500' | 'drop' | 'drop_after' | 'no_notification';

interface SimFailurePlan {
  count: number;
  how: SimFailure;
  code?: string;
  trackId?: string;
}

const TEST_CARD = '8888880000000001';
/** K-064 §3.5.4: "Trans ID … STRING 19 … Y (Refund / Inquiry)". */
const TRANS_ID_MAX = 19;
const HOST_TIMEOUT_CARD = '8888880000000002';
const BANKS = [
  ['KNET1', 'KNET Test Card [KNET1]'],
  ['NBK', 'National Bank of Kuwait [NBK]'],
  ['CBK', 'Commercial Bank of Kuwait [CBK]'],
  ['KFH', 'Kuwait Finance House [KFH]'],
] as const;

export class KnetSimulator {
  /** Every request received, oldest first. */
  readonly requests: SimRequest[] = [];
  readonly payments = new Map<string, SimPayment>();
  /** How long KNET waits for the merchant's `REDIRECT=` line (KNET's own limit is not public). */
  notifyTimeoutMs = 10_000;
  /**
   * How long the page takes a payment after the initialization (K-064 §10 `IPAY0100042`
   * *Transaction time limit exceeds*; KNET does not publish the length). After it the page sends the
   * customer to the errorURL with `IPAY0100042` and takes nothing; inquiry still answers
   * {@link initiatedResult}: KNET documents no other record for a page nobody submitted.
   */
  pageLimitMs = 30 * 60_000;
  /**
   * The inquiry's `result` for a payment whose page is open (nothing submitted yet). The manual is
   * silent; the public kits read `INITIATED` as "not final" (asciisd/knet
   * `PaymentResponseHandler::determineStatus` → `PaymentStatus::INITIATED`, one of its
   * `NEED_MORE_ACTION` states) and strip a `FAILURE(…)` around results
   * (`AbstractKnetService::normalizeResponse`), so either form may come: `FAILURE(INITIATED)` too.
   */
  initiatedResult = 'INITIATED';
  /**
   * How the result is posted to the responseURL (K-064 §3.5.2: "a URL Encoded POST"):
   * - `form`: `paymentid=…&trackid=…&trandata=<hex>` (§3.6.1's sample reads `trandata`,
   *   `paymentid`, `trackid`, `ErrorText` as request parameters);
   * - `bare`: the body is the `trandata` hex alone, which is how KNET's own PHP kit reads it
   *   (srku14/KNET-Payment-Gateway-SDK `GetHandlerResponse.php`: `file_get_contents('php://input')`
   *   appended as `?trandata=`; alnazer/knet-payment `inti_response()` in "redirection mode", the
   *   flow KNET requires since September 2023, decrypts `php://input` as it is), with
   *   {@link barePostContentType}.
   */
  resultPost: 'form' | 'bare' = 'form';
  barePostContentType = 'application/x-www-form-urlencoded';
  readonly terminal: SimTerminal;
  private readonly terminals = new Map<string, SimTerminal>();
  private readonly delays = new Map<SimEndpoint, number>();
  private readonly failures = new Map<SimEndpoint, SimFailurePlan>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    this.terminal = this.addTerminal({
      tranportalId: '600001',
      password: 'pass600001',
      resourceKey: 'KNETRESOURCEKEY1',
      refunds: true,
    });
  }

  static async start(): Promise<KnetSimulator> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const simulator = new KnetSimulator(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      simulator.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(error instanceof Error ? error.message : String(error));
      });
    });
    return simulator;
  }

  get paymentUrl(): string {
    return `${this.url}/kpg/PaymentHTTP.htm`;
  }
  get inquiryUrl(): string {
    return `${this.url}/kpg/tranPipe.htm`;
  }

  addTerminal(terminal: SimTerminal): SimTerminal {
    this.terminals.set(terminal.tranportalId, terminal);
    return terminal;
  }

  /** Waits `ms` before handling each request to `endpoint` (0 removes the delay). */
  delay(endpoint: SimEndpoint, ms: number): void {
    this.delays.set(endpoint, ms);
  }

  /**
   * The next `count` requests to `endpoint` fail as `how`. `code`: KNET's error code of an `error`
   * answer (default `IPAY0100038` *Unable to process the request*), any K-064 §10 code. `trackId`:
   * only tranPipe requests about that track (others, e.g. a reconciler's, pass).
   */
  failNext(
    endpoint: SimEndpoint,
    count: number,
    how: SimFailure,
    only: { code?: string; trackId?: string } = {},
  ): void {
    this.failures.set(endpoint, { count, how, ...only });
  }

  /** The latest payment initialized with `trackId`. */
  paymentByTrack(trackId: string): SimPayment | undefined {
    return [...this.payments.values()].reverse().find((p) => p.trackId === trackId);
  }

  /** Puts a track in a state (creating it when needed, with `amount`), as if KNET had. */
  setState(trackId: string, state: SimState, amount = '1.000'): SimPayment {
    const payment = this.paymentByTrack(trackId) ?? this.newPayment(this.terminal, trackId, amount, {});
    this.settle(payment, state);
    return payment;
  }

  /** Posts the payment's latest notification again, byte for byte. */
  async resendNotification(paymentId: string): Promise<SimNotification> {
    const payment = this.mustFind(paymentId);
    const last = payment.notifications[payment.notifications.length - 1];
    if (!last) throw new Error(`No notification was sent for ${paymentId}`);
    return this.post(payment, last.body, last.contentType);
  }

  /**
   * Where KNET sends the customer when it cannot go on (K-064 §5: "KNET will redirect the customer
   * to the merchant error URL"; §3.5.5 `Error`, `ErrorText`; the sample kit's commented
   * `GetHandlerResponse.php` forwards `Error`, `ErrorText`, `trackid`, `amt`, `paymentid`). Nothing
   * in it is encrypted, and it changes nothing at KNET: the page stays open and payable.
   */
  errorLink(paymentId: string, code = 'IPAY0100040', text = 'Transaction in progress in another tab/window') {
    const payment = this.mustFind(paymentId);
    const target = new URL(payment.errorUrl);
    for (const [key, value] of Object.entries({
      Error: code,
      ErrorText: text,
      trackid: payment.trackId,
      amt: payment.amount,
      paymentid: payment.paymentId,
    }))
      target.searchParams.set(key, value);
    return target.toString();
  }

  /**
   * Every payment KNET took and kept (CAPTURED, not reversed), with what was refunded: what a
   * money audit matches against our transactions (contract §20.1).
   */
  ledger(): Array<{ trackId: string; paymentId: string; amount: string; refunded: string }> {
    return [...this.payments.values()]
      .filter((p) => p.state === 'CAPTURED')
      .map((p) => ({
        trackId: p.trackId,
        paymentId: p.paymentId,
        amount: p.amount,
        refunded: (p.refunds.reduce((sum, r) => sum + Math.round(Number(r.amount) * 1000), 0) / 1000).toFixed(
          3,
        ),
      }));
  }

  /**
   * Posts to the payment's responseURL a result built from the payment, with `fields` changed,
   * encrypted under `resourceKey` (default: the terminal's), optionally with a flipped hex digit,
   * or exactly `raw`.
   */
  async postToResponseUrl(
    paymentId: string,
    options: {
      fields?: Record<string, string>;
      resourceKey?: string;
      tamper?: boolean;
      raw?: string;
      /** Post as the bare hex ({@link resultPost} `bare`) rather than as the form. */
      bare?: boolean;
      contentType?: string;
    } = {},
  ): Promise<SimNotification> {
    const payment = this.mustFind(paymentId);
    if (options.raw !== undefined)
      return this.post(payment, options.raw, options.contentType ?? 'application/x-www-form-urlencoded');
    let trandata = encryptTrandata(
      new URLSearchParams({ ...this.resultFields(payment), ...options.fields }).toString(),
      options.resourceKey ?? payment.terminal.resourceKey,
    ).toUpperCase();
    if (options.tamper) {
      const at = trandata.length - 20;
      trandata = trandata.slice(0, at) + (trandata[at] === 'A' ? 'B' : 'A') + trandata.slice(at + 1);
    }
    const bare = options.bare ?? this.resultPost === 'bare';
    return this.post(
      payment,
      bare ? trandata : notificationBody(payment, trandata),
      options.contentType ?? (bare ? this.barePostContentType : 'application/x-www-form-urlencoded'),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // --- HTTP -------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    const form = contentType.startsWith('application/x-www-form-urlencoded')
      ? Object.fromEntries(new URLSearchParams(body))
      : {};
    const fields: Record<string, string> = { ...Object.fromEntries(url.searchParams), ...form };
    const endpoint = endpointOf(req.method ?? 'GET', url, body);
    const logged: SimRequest = {
      endpoint,
      method: req.method ?? '',
      path: url.pathname,
      fields,
      contentType,
    };
    this.requests.push(logged);
    if (endpoint === 'unknown') return send(res, 404, 'text/plain', 'Not found');

    const wait = this.delays.get(endpoint) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const taken = this.takeFailure(endpoint, body);
    const failure = taken?.how ?? null;
    if (failure === 'drop') return void req.socket.destroy();
    if (failure === 'http500')
      return send(res, 500, 'text/html', '<html><body>Internal Server Error</body></html>');

    switch (endpoint) {
      case 'init':
        return this.init(fields, logged, failure, res);
      case 'page':
        return this.page(fields.PaymentID ?? '', res);
      case 'submit':
        return this.submit(fields, failure, res);
      case 'inquiry':
      case 'refund':
        return this.tranPipe(body, logged, failure, taken?.code, res);
    }
  }

  private takeFailure(endpoint: SimEndpoint, body: string): SimFailurePlan | null {
    const failure = this.failures.get(endpoint);
    if (!failure || failure.count <= 0) return null;
    if (failure.trackId !== undefined && flatXml(body).trackid !== failure.trackId) return null;
    failure.count -= 1;
    return failure;
  }

  /** Payment initialization (K-064 §3.5.4; error codes from §10). */
  private init(
    fields: Record<string, string>,
    logged: SimRequest,
    failure: SimFailure | null,
    res: ServerResponse,
  ) {
    const outerErrorUrl = fields.errorURL ?? '';
    const fail = (code: string, text: string, errorUrl = outerErrorUrl, extra: Record<string, string> = {}) =>
      this.errorRedirect(res, errorUrl, code, text, extra);
    if (fields.param !== 'paymentInit') return fail('IPAY0100038', 'Unable to process the request');
    if (!fields.tranportalId) return fail('IPAY0100005', 'Missing tranportal ID');
    const terminal = this.terminals.get(fields.tranportalId);
    if (!terminal) return fail('IPAY0100006', 'Invalid tranportal ID');
    if (!fields.trandata) return fail('IPAY0100007', 'Missing transaction data');
    let plain: Record<string, string>;
    try {
      plain = Object.fromEntries(new URLSearchParams(decryptTrandata(fields.trandata, terminal.resourceKey)));
    } catch {
      return fail('IPAY0100176', 'Decrypting transaction data failed');
    }
    logged.fields = { ...fields, ...plain };
    const errorUrl = plain.errorURL || outerErrorUrl;
    if (!plain.errorURL) return fail('IPAY0100001', 'Missing error URL');
    if (!isHttpUrl(plain.errorURL)) return fail('IPAY0100002', 'Invalid error URL', '');
    const refuse = (code: string, text: string) =>
      fail(code, text, errorUrl, { trackid: plain.trackid ?? '' });
    if (plain.id !== terminal.tranportalId)
      return refuse('IPAY0100014', 'Terminal Authentication requested with invalid tranportal data');
    if (plain.password !== terminal.password) return refuse('IPAY0100015', 'Invalid tranportal password');
    if (!plain.responseURL) return refuse('IPAY0100003', 'Missing response URL');
    if (!isHttpUrl(plain.responseURL)) return refuse('IPAY0100004', 'Invalid response URL');
    if (plain.action !== '1') return refuse('IPAY0100020', 'Invalid action type');
    if (!plain.currencycode) return refuse('IPAY0100021', 'Missing currency');
    if (plain.currencycode !== '414') return refuse('IPAY0100022', 'Invalid currency');
    if (!plain.amt) return refuse('IPAY0100023', 'Missing amount');
    if (!/^\d{1,6}\.\d{3}$/.test(plain.amt) || Number(plain.amt) <= 0)
      return refuse('IPAY0100024', 'Invalid amount');
    if (!['EN', 'AR'].includes(plain.langid ?? '')) return refuse('IPAY0100026', 'Invalid language ID');
    if (!/^[A-Za-z0-9]{1,40}$/.test(plain.trackid ?? '')) return refuse('IPAY0100027', 'Invalid track id');
    for (const [index, name] of ['udf1', 'udf2', 'udf3', 'udf4', 'udf5'].entries()) {
      if ((plain[name] ?? '').length > 255 || /[@/]/.test(plain[name] ?? '')) {
        const code = ['IPAY0100028', 'IPAY0100029', 'IPAY0100030', 'IPAY0100031', 'IPAY0100032'][index];
        return refuse(code, `Invalid user defined field${index + 1}`);
      }
    }
    if (failure === 'error') return refuse('IPAY0100038', 'Unable to process the request');
    const captured = this.paymentByTrack(plain.trackid);
    if (captured && captured.state === 'CAPTURED') return refuse('IPAY0100114', 'Duplicate Record');
    const payment = this.newPayment(terminal, plain.trackid, plain.amt, plain);
    res.writeHead(302, { Location: `${this.url}/kpg/paymentpage.htm?PaymentID=${payment.paymentId}` });
    res.end();
  }

  private newPayment(
    terminal: SimTerminal,
    trackId: string,
    amount: string,
    plain: Record<string, string>,
  ): SimPayment {
    const payment: SimPayment = {
      paymentId: digits(18),
      trackId,
      amount,
      terminal,
      responseUrl: plain.responseURL ?? '',
      errorUrl: plain.errorURL ?? '',
      language: plain.langid ?? 'EN',
      udfs: Object.fromEntries(['udf1', 'udf2', 'udf3', 'udf4', 'udf5'].map((n) => [n, plain[n] ?? ''])),
      state: 'INITIALIZED',
      tranId: '',
      ref: '',
      auth: '',
      postDate: '',
      authRespCode: '',
      refunds: [],
      notifications: [],
      openedAt: Date.now(),
      views: 0,
    };
    this.payments.set(payment.paymentId, payment);
    return payment;
  }

  /** Whether the page's time limit has passed (K-064 §10 `IPAY0100042`). */
  private timedOut(payment: SimPayment): boolean {
    return Date.now() - payment.openedAt > (payment.terminal.pageLimitMs ?? this.pageLimitMs);
  }

  /**
   * The hosted page. Past its time limit the customer goes to the errorURL with `IPAY0100042`. A
   * second load (another tab or window) goes to the errorURL with `IPAY0100040` *Transaction in
   * progress in another tab/window* (K-064 §10), while the first tab's page still takes the payment.
   */
  private page(paymentId: string, res: ServerResponse, problem = '', count = true): void {
    const payment = this.payments.get(paymentId);
    if (!payment || payment.state !== 'INITIALIZED') {
      return send(res, 200, 'text/html; charset=utf-8', errorPage('IPAY0100055', 'Invalid Payment Status'));
    }
    if (this.timedOut(payment))
      return this.toErrorUrl(res, payment, 'IPAY0100042', 'Transaction time limit exceeds');
    if (count && ++payment.views > 1)
      return this.toErrorUrl(res, payment, 'IPAY0100040', 'Transaction in progress in another tab/window');
    send(res, 200, 'text/html; charset=utf-8', paymentPage(payment, problem));
  }

  private toErrorUrl(res: ServerResponse, payment: SimPayment, code: string, text: string): void {
    res.writeHead(302, { Location: this.errorLink(payment.paymentId, code, text) });
    res.end();
  }

  /** The customer's Submit or Cancel on the hosted page. */
  private async submit(
    fields: Record<string, string>,
    failure: SimFailure | null,
    res: ServerResponse,
  ): Promise<void> {
    const payment = this.payments.get(fields.PaymentID ?? '');
    if (!payment || payment.state !== 'INITIALIZED') {
      return send(res, 200, 'text/html; charset=utf-8', errorPage('IPAY0100055', 'Invalid Payment Status'));
    }
    if (this.timedOut(payment))
      return this.toErrorUrl(res, payment, 'IPAY0100042', 'Transaction time limit exceeds');
    let result: SimResult;
    if (fields.action === 'cancel') result = 'CANCELED';
    else {
      const card = (fields.cardN ?? '').replace(/\s/g, '');
      if (!fields.bank) return this.page(payment.paymentId, res, 'Please select your bank.', false);
      if (!/^\d{16,19}$/.test(card))
        return this.page(payment.paymentId, res, 'Transaction denied due to invalid card number.', false);
      if (!/^\d{4}$/.test(fields.pin ?? ''))
        return this.page(payment.paymentId, res, 'Card pin number is not present.', false);
      if (card === HOST_TIMEOUT_CARD) result = 'HOST TIMEOUT';
      else result = card === TEST_CARD && fields.expmm === '09' ? 'CAPTURED' : 'NOT CAPTURED';
    }
    this.settle(payment, result);
    const trandata = encryptTrandata(
      new URLSearchParams(this.resultFields(payment)).toString(),
      payment.terminal.resourceKey,
    ).toUpperCase();
    const bare = this.resultPost === 'bare';
    const body = bare ? trandata : notificationBody(payment, trandata);
    const contentType = bare ? this.barePostContentType : 'application/x-www-form-urlencoded';
    const delivered =
      failure === 'no_notification'
        ? { body, contentType, status: null, reply: '', error: 'not sent (test control)' }
        : await this.post(payment, body, contentType);
    const location = /^REDIRECT=(\S+)\s*$/.exec(
      delivered.status !== null && delivered.status >= 200 && delivered.status < 300 ? delivered.reply : '',
    )?.[1];
    if (location && isHttpUrl(location)) {
      res.writeHead(302, { Location: location });
      return void res.end();
    }
    if (result === 'CAPTURED') payment.state = 'REVERSED'; // K-064 §9.2.1: auto-void
    send(res, 200, 'text/html; charset=utf-8', errorPage('IPAY0100249', 'Merchant response URL is down'));
  }

  /** Inquiry (action 8) and refund (action 2): K-064 §3.5.3, §3.7.2, §3.7.3. */
  private tranPipe(
    body: string,
    logged: SimRequest,
    failure: SimFailure | null,
    code: string | undefined,
    res: ServerResponse,
  ): void {
    const x = flatXml(body);
    logged.fields = { ...logged.fields, ...x };
    const answer = (text: string) => {
      if (failure === 'drop_after') return void res.socket?.destroy();
      send(res, 200, 'text/xml;charset=UTF-8', text);
    };
    const error = (code: string, text: string) => answer(errorXml(code, text));
    const terminal = this.terminals.get(x.id ?? '');
    if (!terminal) return error('IPAY0100215', 'Invalid tranportal id.');
    if (x.password !== terminal.password) return error('IPAY0100015', 'Invalid tranportal password.');
    if (x.action !== '8' && x.action !== '2') return error('IPAY0100020', 'Invalid action type.');
    if (x.action === '2' && !terminal.refunds) return error('IPAY0100033', 'Terminal action not enabled.');
    if (failure === 'error')
      return error(code ?? 'IPAY0100038', code ? 'Problem occurred.' : 'Unable to process the request.');
    // K-064 §3.5.4: Trans ID is STRING 19. What KNET answers to a longer one is not documented: an
    // error (§10 IPAY0100233 *Invalid original transaction id*), never the transaction.
    if ((x.transid ?? x.transId ?? '').length > TRANS_ID_MAX)
      return error('IPAY0100233', 'Invalid original transaction id.');
    const payment = this.findOriginal(terminal, x);
    if (!payment) return error('IPAY0100263', 'Transaction details not available.');
    if (!/^\d{1,6}\.\d{3}$/.test(x.amt ?? '')) return error('IPAY0100024', 'Invalid amount.');
    if (x.action === '8') {
      if (Number(x.amt) !== Number(payment.amount))
        return error('IPAY0100025', 'Invalid amount or currency.');
      const result =
        payment.state === 'CAPTURED'
          ? 'SUCCESS'
          : payment.state === 'INITIALIZED'
            ? this.initiatedResult
            : `FAILURE(${payment.state})`;
      return answer(xml([['result', result], ...this.detailFields(payment, x.udf5 ?? '')]));
    }
    if (payment.state !== 'CAPTURED')
      return error('IPAY0100285', 'Transaction denied due to invalid original transaction.');
    const refunded = payment.refunds.reduce((sum, r) => sum + Math.round(Number(r.amount) * 1000), 0);
    if (refunded + Math.round(Number(x.amt) * 1000) > Math.round(Number(payment.amount) * 1000)) {
      return error(
        'IPAY0100137',
        'Transaction denied due to credit amount greater than auth amount check failure.',
      );
    }
    const refund: SimRefund = { paymentId: digits(18), tranId: digits(15), amount: x.amt };
    payment.refunds.push(refund);
    answer(
      xml([
        ['result', 'CAPTURED'],
        ['payid', refund.paymentId],
        ['trackid', payment.trackId],
        ...Object.entries(payment.udfs).map(([k, v]): [string, string] => [
          k,
          k === 'udf5' ? (x.udf5 ?? '') : v,
        ]),
        ['ref', digits(12)],
        ['auth', payment.auth],
        ['postdate', postDate()],
        ['tranid', refund.tranId],
        ['amt', refund.amount],
      ]),
    );
  }

  /** The original transaction as `udf5` names it (K-064 §3.5.3's table; §3.6.1 b's note). */
  private findOriginal(terminal: SimTerminal, x: Record<string, string>): SimPayment | undefined {
    const transid = x.transid ?? x.transId ?? '';
    const key: keyof SimPayment =
      ({ TrackID: 'trackId', PaymentID: 'paymentId', SeqNum: 'ref', RefID: 'ref' }[
        x.udf5 ?? ''
      ] as keyof SimPayment) ?? 'tranId';
    const candidates = [...this.payments.values()]
      .reverse()
      .filter((p) => p.terminal === terminal && p[key] === transid);
    return candidates.find((p) => p.trackId === x.trackid);
  }

  private settle(payment: SimPayment, state: SimState): void {
    payment.state = state;
    if (state === 'INITIALIZED' || state === 'CANCELED') return;
    payment.tranId = digits(15);
    payment.ref = digits(12);
    payment.postDate = postDate();
    payment.auth = state === 'CAPTURED' || state === 'REVERSED' ? digits(6) : '000000';
    payment.authRespCode = state === 'CAPTURED' || state === 'REVERSED' ? '00' : '05';
  }

  /** The decrypted result (K-064 §5's samples), in KNET's field order. */
  private resultFields(payment: SimPayment): Record<string, string> {
    return {
      paymentid: payment.paymentId,
      result: payment.state === 'REVERSED' ? 'CAPTURED' : payment.state,
      auth: payment.auth,
      avr: 'N',
      ref: payment.ref,
      tranid: payment.tranId,
      postdate: payment.postDate,
      trackid: payment.trackId,
      ...payment.udfs,
      amt: payment.amount,
      authRespCode: payment.authRespCode,
    };
  }

  private detailFields(payment: SimPayment, udf5: string): Array<[string, string]> {
    return [
      ['auth', payment.auth],
      ['ref', payment.ref],
      ['avr', 'N'],
      ['postdate', payment.postDate],
      ['tranid', payment.tranId],
      ['trackid', payment.trackId],
      ['payid', payment.paymentId],
      ['udf1', payment.udfs.udf1],
      ['udf2', payment.udfs.udf2],
      ['udf3', payment.udfs.udf3],
      ['udf4', payment.udfs.udf4],
      ['udf5', udf5],
      ['amt', payment.amount],
      ['authRespCode', payment.authRespCode],
    ];
  }

  /** KNET's server-to-server post to the responseURL, and the merchant's answer. */
  private post(payment: SimPayment, body: string, contentType: string): Promise<SimNotification> {
    const record: SimNotification = { body, contentType, status: null, reply: '' };
    payment.notifications.push(record);
    return new Promise<SimNotification>((resolve) => {
      const done = (error?: string) => {
        if (error) record.error = error;
        resolve(record);
      };
      const req = httpRequest(
        payment.responseUrl,
        {
          method: 'POST',
          headers: { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) },
          timeout: this.notifyTimeoutMs,
        },
        (response) => {
          record.status = response.statusCode ?? null;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            record.reply = Buffer.concat(chunks).toString('utf8');
            done();
          });
          response.on('error', (error) => done(error.message));
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer in time')));
      req.on('error', (error) => done(error.message));
      req.end(body);
    });
  }

  /** KNET sends the customer to the errorURL with the error in plain text, else shows it. */
  private errorRedirect(
    res: ServerResponse,
    errorUrl: string,
    code: string,
    text: string,
    extra: Record<string, string>,
  ) {
    if (!isHttpUrl(errorUrl)) return send(res, 200, 'text/html; charset=utf-8', errorPage(code, text));
    const target = new URL(errorUrl);
    for (const [key, value] of Object.entries({ Error: code, ErrorText: text, ...extra }))
      target.searchParams.set(key, value);
    res.writeHead(302, { Location: target.toString() });
    res.end();
  }

  private mustFind(paymentId: string): SimPayment {
    const payment = this.payments.get(paymentId);
    if (!payment) throw new Error(`No payment ${paymentId}`);
    return payment;
  }
}

function endpointOf(method: string, url: URL, body: string): SimEndpoint | 'unknown' {
  if (url.pathname === '/kpg/PaymentHTTP.htm' && (method === 'GET' || method === 'POST')) return 'init';
  if (url.pathname === '/kpg/paymentpage.htm') return method === 'POST' ? 'submit' : 'page';
  if (
    url.pathname === '/kpg/tranPipe.htm' &&
    method === 'POST' &&
    url.searchParams.get('param') === 'tranInit'
  ) {
    return /<action>\s*2\s*<\/action>/.test(body) ? 'refund' : 'inquiry';
  }
  return 'unknown';
}

function notificationBody(payment: SimPayment, trandata: string): string {
  return new URLSearchParams({ paymentid: payment.paymentId, trackid: payment.trackId, trandata }).toString();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function digits(count: number): string {
  let text = String(randomInt(1, 10));
  while (text.length < count) text += String(randomInt(0, 10));
  return text;
}

function postDate(): string {
  const now = new Date();
  return `${String(now.getUTCMonth() + 1).padStart(2, '0')}${String(now.getUTCDate()).padStart(2, '0')}`;
}

function flatXml(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, tag, value] of text.matchAll(/<([A-Za-z_][\w.-]*)>([^<]*)<\/\1>/g)) {
    fields[tag] ??= value
      .trim()
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  }
  return fields;
}

function xml(pairs: Array<[string, string]>): string {
  return pairs.map(([tag, value]) => `<${tag}>${escapeHtml(value)}</${tag}>`).join('');
}

function errorXml(code: string, text: string): string {
  return `<error_code_tag>${code}</error_code_tag><error_service_tag>null</error_service_tag><result>!ERROR!-${code}-${text}</result>`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

function errorPage(code: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>KNET Payment Page</title></head>
<body><h1>KNET</h1><p role="alert">${escapeHtml(code)} - ${escapeHtml(text)}</p></body></html>`;
}

function paymentPage(payment: SimPayment, problem: string): string {
  const options = (values: string[]) => values.map((v) => `<option value="${v}">${v}</option>`).join('');
  const months = Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, '0'));
  const years = Array.from({ length: 20 }, (_, i) => String(2021 + i));
  return `<!doctype html><html lang="${payment.language === 'AR' ? 'ar' : 'en'}"><head><meta charset="utf-8">
<title>KNET Payment Page</title></head><body>
<h1>KNET Payment</h1>
<dl><dt>Merchant</dt><dd>${escapeHtml(payment.terminal.tranportalId)}</dd>
<dt>Amount</dt><dd id="amount">KD ${escapeHtml(payment.amount)}</dd>
<dt>Payment ID</dt><dd>${escapeHtml(payment.paymentId)}</dd></dl>
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="/kpg/paymentpage.htm">
<input type="hidden" name="PaymentID" value="${escapeHtml(payment.paymentId)}">
<p><label for="bank">Select Your Bank</label> <select id="bank" name="bank"><option value="">Select Your Bank</option>${BANKS.map(
    ([value, label]) => `<option value="${value}">${escapeHtml(label)}</option>`,
  ).join('')}</select></p>
<p><label for="cardN">Card Number</label> <input id="cardN" name="cardN" inputmode="numeric" autocomplete="off"></p>
<p><label for="expmm">Expiration Month</label> <select id="expmm" name="expmm">${options(months)}</select>
<label for="expyy">Expiration Year</label> <select id="expyy" name="expyy">${options(years)}</select></p>
<p><label for="pin">PIN</label> <input id="pin" name="pin" type="password" inputmode="numeric" maxlength="4" autocomplete="off"></p>
<p><button type="submit" name="action" value="submit">Submit</button>
<button type="submit" name="action" value="cancel">Cancel</button></p>
</form></body></html>`;
}
