import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Transaction } from '../../src/transactions/transaction.entity';
import type { TransactionState } from '../../src/transactions/transaction-state';
import { TransactionsRepository } from '../../src/transactions/transactions.repository';
import { transactionBody } from '../factories/transaction.factory';
import type { Seeded } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';

/** A response body as tests read it (any key, any shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TxJson = Record<string, any>;

export const TXN_PATH = '/b/checkout/v1/pymt-txn/';
export const txnPath = (sessionId: string): string => `${TXN_PATH}${sessionId}/`;

/** Creates a transaction over HTTP with the API key; fails the test unless it answers 201. */
export async function createTransaction(
  t: TestApp,
  s: Seeded,
  overrides: Record<string, unknown> = {},
): Promise<TxJson> {
  const res = await t.http().post(TXN_PATH).set('Authorization', s.apiKey).send(transactionBody(overrides));
  assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 500));
  return res.body as TxJson;
}

/** POSTs a create body with the API key and returns the response (any status). */
export const postTransaction = (t: TestApp, s: Seeded, body: unknown) =>
  t
    .http()
    .post(TXN_PATH)
    .set('Authorization', s.apiKey)
    .send(body as object);

/** The 400 body of a create with these overrides (fails unless 400). */
export async function createErrors(
  t: TestApp,
  s: Seeded,
  overrides: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await postTransaction(t, s, transactionBody(overrides));
  assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 500));
  return res.body as Record<string, unknown>;
}

/**
 * Moves a transaction to a state directly through the repository (the state machine and the
 * operations that do this properly are built elsewhere).
 */
export async function forceState(t: TestApp, sessionId: string, state: TransactionState): Promise<void> {
  const tx = await t.app.get(DataSource).getRepository(Transaction).findOneByOrFail({ sessionId });
  const written = await t.app
    .get(TransactionsRepository, { strict: false })
    .updateIfCurrent(tx.id, tx.version, [tx.state], { state }, t.app.get(DataSource).manager);
  assert.ok(written, 'state change was not written');
}

/** The stored row (to prove a rejected request wrote nothing). */
export const storedRow = (t: TestApp, sessionId: string): Promise<Transaction> =>
  t.app.get(DataSource).getRepository(Transaction).findOneByOrFail({ sessionId });
