import { computeFee, formatAmount, Money } from '../../common/money/money';
import type { EventName } from '../../events/event-types';
import { isSandbox, type Gateway } from '../../gateways/gateway.entity';
import type { Transaction } from '../transaction.entity';
import type { CardDto } from '../../cards/dto/card.dto';
import type { RouteDecisionView } from '../../routing/route-decisions.repository';

/** What an event carries beside the transaction's own fields. */
export interface EventDetails {
  /** Operation events (capture, void, refund, cancel, expire, and the cancel of a delete). */
  operation?: string;
  /** The operation's amount (decimal text). */
  operationAmount?: string;
  /** The payment attempt's reference number. */
  referenceNumber?: string;
  /** `success` / `failed` / `error` of the attempt or operation. */
  result?: string;
  /** The card a payment saved or charged (contract §15): the webhook's `token`. */
  card?: CardDto;
  /** The attempt's message: what its response code means. */
  message?: string;
  /** The gateway's answer to the attempt, without card data. */
  gatewayResponse?: Record<string, unknown>;
  /**
   * Only the merchant's webhook, no e-mail or SMS to the customer: a provider operation that failed
   * (its `failed` event is not the customer's payment failing).
   */
  merchantOnly?: boolean;
}

/** The Basic user who created the transaction (the webhook's `initiator`). */
export interface Initiator {
  id: number;
  username: string;
}

export interface PayloadInput {
  tx: Transaction;
  event: EventName;
  eventId: string;
  sequence: number;
  details: EventDetails;
  gateway: Pick<Gateway, 'code' | 'name' | 'type' | 'feeFixed' | 'feePercent'> | null;
  digits: number;
  at: Date;
  initiator?: Initiator | null;
  /** A routing gateway's decisions for the transaction (contract §21); none otherwise. */
  routing?: readonly RouteDecisionView[];
}

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export const utcTimestamp = (at: Date): string => at.toISOString().slice(0, 19).replace('T', ' ');

/**
 * The webhook body of contract §6, without `signature` (added when it is sent). A snapshot of the
 * transaction at the moment its event was recorded.
 */
export function buildEventPayload(input: PayloadInput): Record<string, unknown> {
  const { tx, details, digits, gateway } = input;
  const money = (value: string) => formatAmount(value, digits);
  const address = tx.billingAddress;
  const amount = money(tx.amount);
  const fee = gateway ? computeFee(tx.amount, gateway.feeFixed, gateway.feePercent, digits) : money('0');
  const settled = new Money(tx.paidAmount).plus(tx.capturedAmount);
  const remaining = Money.max(new Money(tx.amount).minus(settled), 0);
  const payload: Record<string, unknown> = {
    event: input.event,
    event_id: input.eventId,
    sequence: input.sequence,
    session_id: tx.sessionId,
    order_no: tx.orderNo,
    state: tx.state,
    payment_type: tx.paymentType,
    amount,
    currency_code: tx.currencyCode,
    fee,
    amount_details: {
      amount,
      currency_code: tx.currencyCode,
      fee,
      total: money(new Money(amount).plus(fee).toFixed()),
    },
    gateway_account: tx.pgCode,
    gateway_code: tx.gatewayCode ?? '',
    routing: [...(input.routing ?? [])],
    gateway_name: gateway?.name ?? '',
    is_sandbox: gateway ? isSandbox(gateway) : false,
    reference_number: details.referenceNumber ?? '',
    result: details.result ?? (input.event === 'created' ? '' : defaultResult(input.event)),
    paid_amount: money(tx.paidAmount),
    captured_amount: money(tx.capturedAmount),
    refunded_amount: money(tx.refundedAmount),
    settled_amount: money(settled.toFixed()),
    remaining_amount: money(remaining.toFixed()),
    voided_amount: money(tx.voidedAmount),
    message: details.message ?? '',
    gateway_response: details.gatewayResponse ?? {},
    pg_params: {},
    token: details.card ?? null,
    customer_id: tx.customerId,
    customer_first_name: tx.customerFirstName,
    customer_last_name: tx.customerLastName,
    customer_email: tx.customerEmail,
    customer_phone: tx.customerPhone,
    customer_address_line1: address?.line1 ?? '',
    customer_address_line2: address?.line2 ?? '',
    customer_address_city: address?.city ?? '',
    customer_address_state: address?.state ?? '',
    customer_address_country: address?.country ?? '',
    customer_address_postal_code: address?.postal_code ?? '',
    extra: tx.extra,
    timestamp_utc: utcTimestamp(input.at),
  };
  if (input.initiator) payload.initiator = { id: input.initiator.id, username: input.initiator.username };
  if (details.operation !== undefined) {
    payload.operation = details.operation;
    payload.operation_amount =
      details.operationAmount !== undefined ? money(details.operationAmount) : money(tx.amount);
  }
  return payload;
}

/** `result` when the caller did not say: a failed attempt is `failed`, every other event `success`. */
function defaultResult(event: EventName): string {
  return event === 'failed' ? 'failed' : 'success';
}
