import { transactionBody } from './transaction.factory';
import type { TestApp } from '../setup/test-app';
import type { TransactionState } from '../../src/transactions/transaction-state';

export const TEST_CARDS = {
  success: '4111 1111 1111 1111',
  declined: '4000 0000 0000 0002',
  error: '4000 0000 0000 0119',
} as const;

export const CREATE_PATH = '/b/checkout/v1/pymt-txn/';
export const OPERATION_PATH = '/b/pbl/v2/operation/';
export const testPayPath = (sessionId: string): string =>
  `/b/checkout/v1/test-helpers/pymt-txn/${sessionId}/pay/`;

/**
 * Drives transactions through the public API into any state of contract §5. `authorizeGateway` is a
 * sandbox gateway code whose operation is `authorize` (for authorized / captured / voided).
 */
export class TransactionDriver {
  constructor(
    private readonly t: TestApp,
    private readonly apiKey: string,
    private readonly authorizeGateway = 'sandbox-auth',
  ) {}

  async create(overrides: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const res = await this.t
      .http()
      .post(CREATE_PATH)
      .set('Authorization', this.apiKey)
      .send(transactionBody(overrides));
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  }

  async pay(sessionId: string, card: string): Promise<Record<string, unknown>> {
    const res = await this.t
      .http()
      .post(testPayPath(sessionId))
      .set('Authorization', this.apiKey)
      .send({ card });
    if (res.status !== 200) throw new Error(`pay answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  }

  async operate(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.t.http().post(OPERATION_PATH).set('Authorization', this.apiKey).send(body);
    return { status: res.status, body: res.body as Record<string, unknown> };
  }

  async get(sessionId: string): Promise<Record<string, unknown>> {
    const res = await this.t.http().get(`${CREATE_PATH}${sessionId}/`);
    return res.body as Record<string, unknown>;
  }

  /** A new transaction in `state`, reached only through the API. Returns its session id. */
  async inState(state: TransactionState, overrides: Record<string, unknown> = {}): Promise<string> {
    const authorizing = ['authorized', 'captured', 'voided'].includes(state);
    const tx = await this.create(
      authorizing ? { pg_codes: [this.authorizeGateway], ...overrides } : overrides,
    );
    const id = String(tx.session_id);
    const operate = async (operation: string) => {
      const res = await this.operate({ operation, session_id: id });
      if (res.status !== 200)
        throw new Error(`${operation} answered ${res.status}: ${JSON.stringify(res.body)}`);
    };
    switch (state) {
      case 'created':
        break;
      case 'paid':
      case 'authorized':
        await this.pay(id, TEST_CARDS.success);
        break;
      case 'failed':
        await this.pay(id, TEST_CARDS.declined);
        break;
      case 'error':
        await this.pay(id, TEST_CARDS.error);
        break;
      case 'canceled':
        await operate('cancel');
        break;
      case 'expired':
        await operate('expire');
        break;
      case 'captured':
        await this.pay(id, TEST_CARDS.success);
        await operate('capture');
        break;
      case 'voided':
        await this.pay(id, TEST_CARDS.success);
        await operate('void');
        break;
      case 'refunded':
        await this.pay(id, TEST_CARDS.success);
        await operate('refund');
        break;
    }
    const now = await this.get(id);
    if (now.state !== state) throw new Error(`wanted ${state}, got ${String(now.state)}`);
    return id;
  }
}
