/**
 * How the MPGS simulator decides a card payment, after the gateway's test environment: the
 * standard test cards, and the expiry date choosing `response.gatewayCode`
 * (https://developer.mastercard.com/mastercard-gateway/documentation/testing/test-cards/test-card-numbers/test-card-numbers-brand/,
 * https://ap-gateway.mastercard.com/api/documentation/integrationGuidelines/supportedFeatures/testAndGoLive.html).
 */

/** Standard test cards by brand (all regions). */
export const MPGS_TEST_CARDS: Readonly<Record<string, string>> = {
  '5123450000000008': 'MASTERCARD',
  '2223000000000007': 'MASTERCARD',
  '5111111111111118': 'MASTERCARD',
  '2223000000000023': 'MASTERCARD',
  '4508750015741019': 'VISA',
  '4012000033330026': 'VISA',
};

/** Expiry (MM/YY) → `response.gatewayCode`, as the test environment maps it. */
export const MPGS_TEST_EXPIRY_CODES: Readonly<Record<string, string>> = {
  '01/39': 'APPROVED',
  '05/39': 'DECLINED',
  '04/27': 'EXPIRED_CARD',
  '08/28': 'TIMED_OUT',
  '01/37': 'ACQUIRER_SYSTEM_ERROR',
  '02/37': 'UNSPECIFIED_FAILURE',
  '05/37': 'UNKNOWN',
};

/** CSC → `response.cardSecurityCode.gatewayCode` for Visa and Mastercard. */
export const MPGS_TEST_CSC_CODES: Readonly<Record<string, string>> = {
  '100': 'MATCH',
  '101': 'NOT_PROCESSED',
  '102': 'NO_MATCH',
};

export interface SimCard {
  /** The full number: kept only inside the simulator, never in an answer. */
  number: string;
  brand: string;
  month: string;
  year: string;
  csc: string | null;
}

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Reads the hosted page's fields; returns the card, or the problem to show the payer. */
export function readCard(
  numberText: string,
  expiryText: string,
  cscText: string,
): { card: SimCard } | { problem: string } {
  const number = numberText.replace(/[\s-]/g, '');
  if (!luhnValid(number)) return { problem: 'Card number is invalid.' };
  const expiry = /^\s*(\d{2})\s*\/\s*(\d{2})\s*$/.exec(expiryText);
  if (!expiry || Number(expiry[1]) < 1 || Number(expiry[1]) > 12)
    return { problem: 'Expiry date is invalid.' };
  const csc = cscText.trim();
  if (csc !== '' && !/^\d{3,4}$/.test(csc)) return { problem: 'Security code is invalid.' };
  const brand = MPGS_TEST_CARDS[number] ?? (number.startsWith('4') ? 'VISA' : 'MASTERCARD');
  return { card: { number, brand, month: expiry[1], year: expiry[2], csc: csc || null } };
}

/** The gateway code a payment with this card gets: a test card follows the expiry table. */
export function gatewayCodeFor(card: SimCard): string {
  if (!(card.number in MPGS_TEST_CARDS)) return 'DECLINED';
  return MPGS_TEST_EXPIRY_CODES[`${card.month}/${card.year}`] ?? 'APPROVED';
}

/** `result` of a transaction with this gateway code. */
export function resultFor(gatewayCode: string): 'SUCCESS' | 'FAILURE' | 'UNKNOWN' {
  if (gatewayCode === 'APPROVED') return 'SUCCESS';
  return gatewayCode === 'UNKNOWN' ? 'UNKNOWN' : 'FAILURE';
}

/** The card as answers show it: `512345xxxxxx0008`. */
export function maskedNumber(number: string): string {
  return `${number.slice(0, 6)}${'x'.repeat(number.length - 10)}${number.slice(-4)}`;
}
