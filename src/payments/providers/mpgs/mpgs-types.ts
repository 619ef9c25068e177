/**
 * The parts of MPGS REST API (version 100) requests and answers that Checkout uses. Field names are
 * MPGS's; amounts in answers are kept as decimal text (see `mpgs-client.ts`). Reference:
 * https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/v100/rest/api-ops/
 */

/** `interaction.operation` of INITIATE CHECKOUT: what the Hosted Payment Page does with the card. */
export type MpgsCheckoutOperation = 'PURCHASE' | 'AUTHORIZE';

/** `result` of an answer (https://developer.mastercard.com/mastercard-gateway/documentation/testing/trans-error/). */
export type MpgsResult = 'SUCCESS' | 'FAILURE' | 'PENDING' | 'UNKNOWN' | 'ERROR';

/** `order.status` values Checkout acts on (others exist, e.g. AUTHENTICATED, DISPUTED). */
export type MpgsOrderStatus =
  | 'INITIATED'
  | 'AUTHORIZED'
  | 'CAPTURED'
  | 'PARTIALLY_CAPTURED'
  | 'REFUNDED'
  | 'PARTIALLY_REFUNDED'
  | 'CANCELLED'
  | 'FAILED'
  | 'VERIFIED'
  | (string & Record<never, never>);

export interface MpgsInitiateCheckoutInput {
  /** Checkout's attempt reference (contract §20): MPGS `order.id`, 1–40 characters. */
  orderId: string;
  amount: string;
  currency: string;
  /** The currency's digits, from the currencies module. */
  digits: number;
  description?: string;
  operation: MpgsCheckoutOperation;
  returnUrl: string;
  cancelUrl: string;
  notificationUrl: string;
  /** `TO_BE_STORED` when the payer's card is to be saved (credential on file). */
  storedOnFile?: 'TO_BE_STORED';
  /** The agreement of a series the payment on the page starts (credential on file). */
  agreement?: MpgsAgreement;
}

/**
 * `agreement` of a payment in a series ("Credential on File Transactions",
 * https://developer.mastercard.com/mastercard-gateway/documentation/security-and-fraud/cred-file-transc/).
 */
export interface MpgsAgreement {
  /** Our agreement's id (at most 100 characters at MPGS). */
  id: string;
  type: 'RECURRING' | 'INSTALLMENT' | 'UNSCHEDULED' | 'OTHER';
}

export interface MpgsCheckoutSession {
  sessionId: string;
  sessionVersion: string | null;
  /** Compared with the `resultIndicator` the browser brings back (contract §20). */
  successIndicator: string;
}

export interface MpgsSessionAnswer {
  result: MpgsResult;
  merchant?: string;
  checkoutMode?: string;
  successIndicator?: string;
  session?: { id: string; version?: string; updateStatus?: string };
}

export interface MpgsCardDetails {
  brand?: string;
  /** Masked by the gateway, e.g. `512345xxxxxx0008`. */
  number?: string;
  /** `{month, year}` on transactions; `"MMYY"` text on tokens. */
  expiry?: { month?: string; year?: string } | string;
  scheme?: string;
  fundingMethod?: string;
}

export interface MpgsTransaction {
  result: MpgsResult;
  merchant?: string;
  order: {
    id: string;
    amount?: string;
    currency?: string;
    status?: MpgsOrderStatus;
    totalAuthorizedAmount?: string;
    totalCapturedAmount?: string;
    totalRefundedAmount?: string;
  };
  response?: { gatewayCode?: string; acquirerCode?: string; acquirerMessage?: string };
  transaction: {
    id: string;
    /** e.g. PAYMENT, AUTHORIZATION, CAPTURE, REFUND, VOID_AUTHORIZATION. */
    type?: string;
    amount?: string;
    currency?: string;
    authorizationCode?: string;
    receipt?: string;
    source?: string;
    targetTransactionId?: string;
  };
  sourceOfFunds?: { type?: string; token?: string; provided?: { card?: MpgsCardDetails } };
  timeOfRecord?: string;
  gatewayEntryPoint?: string;
}

export interface MpgsOrder {
  result: MpgsResult;
  id: string;
  amount: string;
  currency: string;
  status: MpgsOrderStatus;
  description?: string;
  totalAuthorizedAmount?: string;
  totalCapturedAmount?: string;
  totalRefundedAmount?: string;
  creationTime?: string;
  sourceOfFunds?: { type?: string; token?: string; provided?: { card?: MpgsCardDetails } };
  transaction?: MpgsTransaction[];
}

export interface MpgsToken {
  result: MpgsResult;
  token: string;
  status?: string;
  repositoryId?: string;
  sourceOfFunds?: { type?: string; provided?: { card?: MpgsCardDetails } };
  verificationStrategy?: string;
}
