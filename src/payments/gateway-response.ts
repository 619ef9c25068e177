import type { StoredAnswer } from './payment-attempts.repository';

/**
 * What the common response codes mean (ISO 8583 field 39, which card gateways, the sandbox
 * included, answer with). A code not listed is described by the attempt's result.
 */
const RESPONSE_MESSAGES: Readonly<Record<string, string>> = {
  '00': 'Approved',
  '01': 'Refer to card issuer',
  '04': 'Pick up card',
  '05': 'Do not honour',
  '14': 'Invalid card number',
  '41': 'Lost card',
  '43': 'Stolen card',
  '51': 'Insufficient funds',
  '54': 'Expired card',
  '57': 'Transaction not permitted to cardholder',
  '61': 'Exceeds withdrawal amount limit',
  '91': 'Issuer or switch inoperative',
  '96': 'System malfunction',
};

const RESULT_MESSAGES: Readonly<Record<StoredAnswer['result'], string>> = {
  success: 'Approved',
  declined: 'Declined',
  error: 'Gateway error',
};

/** The webhook's `message` (contract §16): what the attempt's response code means. */
export function responseMessage(answer: Pick<StoredAnswer, 'result' | 'responseCode'>): string {
  return RESPONSE_MESSAGES[answer.responseCode] ?? RESULT_MESSAGES[answer.result];
}

/**
 * The webhook's `gateway_response` (contract §16): the gateway's answer as stored with the attempt.
 * Never card data, nor the gateway's card token (a credential to charge the card).
 */
export function gatewayResponse(
  answer: Pick<StoredAnswer, 'result' | 'responseCode'>,
  referenceNumber: string,
  pgCode: string,
): Record<string, unknown> {
  return {
    pg_code: pgCode,
    reference_number: referenceNumber,
    result: answer.result,
    response_code: answer.responseCode,
    message: responseMessage(answer),
  };
}
