import type { Gateway, GatewayOperation } from '../../gateways/gateway.entity';

/**
 * The seam where payment gateways plug in. The sandbox adapter is the only one today; a real
 * gateway (KNET, Stripe, ...) is one more class implementing this interface, registered in
 * `PaymentsModule` under the `pg` values it serves.
 */

export interface PayInput {
  gateway: Gateway;
  /** Our reference number for this attempt (also sent to the gateway). */
  referenceNumber: string;
  /** The stored amount (decimal text): never anything the browser sent. */
  amount: string;
  currencyCode: string;
  /** `purchase` charges; `authorize` only holds the amount until a capture or a void. */
  operation: GatewayOperation;
  /**
   * What to charge: the card number (digits only; used for this call only, never stored, never
   * logged), or the gateway's token of a card it saved earlier (contract §15) with the CVC when the
   * customer is present (the payment page), none for a merchant-initiated charge.
   */
  card: { number: string } | { gatewayToken: string; cvc?: string };
  /** Tokenize the card: on success the outcome carries the gateway's token for it. */
  saveCard: boolean;
}

export interface AttemptOutcome {
  result: 'success' | 'declined' | 'error';
  /** The gateway's response code, stored with the attempt. */
  responseCode: string;
  /** The gateway's token of the card, when it was asked to save it and the charge succeeded. */
  gatewayToken?: string | null;
}

export interface InquiryInput {
  gateway: Gateway;
  /** The reference number the attempt was sent with. */
  referenceNumber: string;
}

export type FollowUpOperation = 'capture' | 'void' | 'refund';

export interface FollowUpInput {
  gateway: Gateway;
  operation: FollowUpOperation;
  /** The reference number of the successful attempt the operation applies to. */
  referenceNumber: string;
  amount: string;
  currencyCode: string;
}

export interface FollowUpOutcome {
  result: 'success' | 'failed';
  /** A message for the operations API's `detail` when the gateway refuses. */
  message?: string;
}

export interface GatewayAdapter {
  /** A name for logs. */
  readonly name: string;
  /** The gateway settings this adapter serves. */
  serves(gateway: Gateway): boolean;
  /**
   * Charges (or authorizes) once. May throw when the gateway cannot be reached or its answer is
   * lost: the outcome is then unknown, and {@link inquire} tells it later.
   */
  pay(input: PayInput): Promise<AttemptOutcome>;
  /**
   * What the gateway knows of an attempt, by our reference number (contract §17): its outcome, or
   * null when it never received it (nothing was charged). Throws when the gateway cannot be asked
   * now (the reconciler asks again later).
   */
  inquire(input: InquiryInput): Promise<AttemptOutcome | null>;
  /** Capture, void or refund an earlier successful attempt. */
  followUp(input: FollowUpInput): Promise<FollowUpOutcome>;
}

/** Injection token of the list of adapters. */
export const GATEWAY_ADAPTERS = Symbol('GATEWAY_ADAPTERS');
