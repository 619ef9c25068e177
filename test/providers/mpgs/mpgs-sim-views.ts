import Decimal from 'decimal.js';
import { LosslessNumber } from 'lossless-json';
import { maskedNumber, SimCard } from './mpgs-sim-cards';

/**
 * The MPGS simulator's order book and how it answers about it: RETRIEVE ORDER, RETRIEVE
 * TRANSACTION (also the body of a notification) and token answers, with MPGS's field names
 * (https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/v100/rest/api-ops/).
 * Amounts are JSON numbers written from decimals, never through floats.
 */

export interface SimTransaction {
  id: string;
  apiOperation: string;
  type: string;
  result: 'SUCCESS' | 'FAILURE' | 'UNKNOWN' | 'PENDING';
  gatewayCode: string;
  amount: string;
  currency: string;
  source: 'INTERNET' | 'MERCHANT';
  gatewayEntryPoint: 'CHECKOUT' | 'WEB_SERVICES_API';
  targetTransactionId: string | null;
  authorizationCode: string | null;
  receipt: string;
  timeOfRecord: string;
  cscCode: string | null;
  /** `sourceOfFunds.provided.card.storedOnFile` the transaction was made with, when given. */
  storedOnFile: string | null;
  /** `agreement` the transaction was made under, when given. */
  agreement: Record<string, unknown> | null;
}

export interface SimOrder {
  id: string;
  amount: string;
  currency: string;
  description: string | null;
  notificationUrl: string | null;
  status: string;
  totalAuthorizedAmount: Decimal;
  totalCapturedAmount: Decimal;
  totalRefundedAmount: Decimal;
  creationTime: string;
  card: SimCard | null;
  token: string | null;
  transactions: SimTransaction[];
}

const number = (value: Decimal | string) => new LosslessNumber(new Decimal(value).toFixed());

export function orderSummary(order: SimOrder): Record<string, unknown> {
  return {
    id: order.id,
    amount: number(order.amount),
    currency: order.currency,
    ...(order.description ? { description: order.description } : {}),
    ...(order.notificationUrl ? { notificationUrl: order.notificationUrl } : {}),
    status: order.status,
    creationTime: order.creationTime,
    totalAuthorizedAmount: number(order.totalAuthorizedAmount),
    totalCapturedAmount: number(order.totalCapturedAmount),
    totalRefundedAmount: number(order.totalRefundedAmount),
  };
}

export function cardView(
  card: SimCard | null,
  token: string | null,
  storedOnFile: string | null = null,
): Record<string, unknown> | undefined {
  if (!card) return undefined;
  return {
    type: 'CARD',
    ...(token ? { token } : {}),
    provided: {
      card: {
        brand: card.brand,
        scheme: card.brand,
        fundingMethod: 'CREDIT',
        number: maskedNumber(card.number),
        expiry: { month: String(Number(card.month)), year: card.year },
        ...(storedOnFile ? { storedOnFile } : {}),
      },
    },
  };
}

export function transactionView(
  merchantId: string,
  order: SimOrder,
  transaction: SimTransaction,
): Record<string, unknown> {
  return {
    result: transaction.result,
    merchant: merchantId,
    gatewayEntryPoint: transaction.gatewayEntryPoint,
    order: orderSummary(order),
    response: {
      gatewayCode: transaction.gatewayCode,
      acquirerCode: transaction.result === 'SUCCESS' ? '00' : '05',
      ...(transaction.cscCode ? { cardSecurityCode: { gatewayCode: transaction.cscCode } } : {}),
    },
    sourceOfFunds: cardView(order.card, order.token, transaction.storedOnFile),
    ...(transaction.agreement ? { agreement: transaction.agreement } : {}),
    timeOfRecord: transaction.timeOfRecord,
    transaction: {
      id: transaction.id,
      type: transaction.type,
      amount: number(transaction.amount),
      currency: transaction.currency,
      source: transaction.source,
      receipt: transaction.receipt,
      ...(transaction.authorizationCode ? { authorizationCode: transaction.authorizationCode } : {}),
      ...(transaction.targetTransactionId ? { targetTransactionId: transaction.targetTransactionId } : {}),
    },
    version: '100',
  };
}

export function orderView(merchantId: string, order: SimOrder): Record<string, unknown> {
  return {
    result: 'SUCCESS',
    merchant: merchantId,
    ...orderSummary(order),
    sourceOfFunds: cardView(order.card, order.token),
    transaction: order.transactions.map((t) => transactionView(merchantId, order, t)),
  };
}

export function tokenView(token: string, card: SimCard): Record<string, unknown> {
  return {
    result: 'SUCCESS',
    repositoryId: 'SIMREPO',
    status: 'VALID',
    token,
    verificationStrategy: 'NONE',
    sourceOfFunds: {
      type: 'CARD',
      provided: {
        card: {
          brand: card.brand,
          number: maskedNumber(card.number),
          expiry: `${card.month}${card.year}`,
          scheme: card.brand,
        },
      },
    },
  };
}
