/**
 * Stripe's test cards and test PaymentMethods, from https://docs.stripe.com/testing ("Cards by
 * brand", "Declined payments", "Authentication and setup", "PaymentMethods").
 */

/** What happens when a card is charged. */
export type CardBehaviour =
  | { kind: 'success' }
  | { kind: 'decline'; code: string; declineCode: string; message: string }
  /** On the hosted page: a 3D Secure challenge. Off-session: declined with authentication_required. */
  | { kind: 'authenticate'; offSessionAfterSetup: 'success' | 'authentication_required' };

export interface TestCard {
  number: string;
  brand: 'visa' | 'mastercard' | 'amex' | 'discover';
  funding: 'credit' | 'debit';
  behaviour: CardBehaviour;
}

const decline = (code: string, declineCode: string, message: string): CardBehaviour => ({
  kind: 'decline',
  code,
  declineCode,
  message,
});

export const AUTHENTICATION_REQUIRED = decline(
  'authentication_required',
  'authentication_required',
  'Your card was declined. This transaction requires authentication.',
);

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242424242424242', brand: 'visa', funding: 'credit', behaviour: { kind: 'success' } },
  { number: '4000056655665556', brand: 'visa', funding: 'debit', behaviour: { kind: 'success' } },
  { number: '5555555555554444', brand: 'mastercard', funding: 'credit', behaviour: { kind: 'success' } },
  { number: '2223003122003222', brand: 'mastercard', funding: 'credit', behaviour: { kind: 'success' } },
  { number: '5200828282828210', brand: 'mastercard', funding: 'debit', behaviour: { kind: 'success' } },
  { number: '378282246310005', brand: 'amex', funding: 'credit', behaviour: { kind: 'success' } },
  { number: '6011111111111117', brand: 'discover', funding: 'credit', behaviour: { kind: 'success' } },
  {
    number: '4000000000000002',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('card_declined', 'generic_decline', 'Your card was declined.'),
  },
  {
    number: '4000000000009995',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('card_declined', 'insufficient_funds', 'Your card has insufficient funds.'),
  },
  {
    number: '4000000000009987',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('card_declined', 'lost_card', 'Your card was declined.'),
  },
  {
    number: '4000000000009979',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('card_declined', 'stolen_card', 'Your card was declined.'),
  },
  {
    number: '4000000000006975',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('card_declined', 'card_velocity_exceeded', 'Your card was declined.'),
  },
  {
    number: '4000000000000069',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('expired_card', 'expired_card', 'Your card has expired.'),
  },
  {
    number: '4000000000000127',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('incorrect_cvc', 'incorrect_cvc', "Your card's security code is incorrect."),
  },
  {
    number: '4000000000000119',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline(
      'processing_error',
      'processing_error',
      'An error occurred while processing your card. Try again in a little bit.',
    ),
  },
  {
    number: '4242424242424241',
    brand: 'visa',
    funding: 'credit',
    behaviour: decline('incorrect_number', 'incorrect_number', 'Your card number is incorrect.'),
  },
  {
    number: '4000002500003155',
    brand: 'visa',
    funding: 'credit',
    behaviour: { kind: 'authenticate', offSessionAfterSetup: 'success' },
  },
  {
    number: '4000002760003184',
    brand: 'visa',
    funding: 'credit',
    behaviour: { kind: 'authenticate', offSessionAfterSetup: 'authentication_required' },
  },
];

/** Test PaymentMethods usable without saving a card first (https://docs.stripe.com/testing#cards). */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, string>> = {
  pm_card_visa: '4242424242424242',
  pm_card_visa_debit: '4000056655665556',
  pm_card_mastercard: '5555555555554444',
  pm_card_amex: '378282246310005',
  pm_card_chargeDeclined: '4000000000000002',
  pm_card_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_chargeDeclinedLostCard: '4000000000009987',
  pm_card_chargeDeclinedExpiredCard: '4000000000000069',
  pm_card_chargeDeclinedProcessingError: '4000000000000119',
  pm_card_authenticationRequired: '4000002760003184',
};

/** The test card with this number (spaces ignored); unknown numbers are declined as incorrect. */
export function findTestCard(number: string): TestCard {
  const digits = number.replace(/\D/g, '');
  return (
    TEST_CARDS.find((card) => card.number === digits) ?? {
      number: digits,
      brand: 'visa',
      funding: 'credit',
      behaviour: decline('incorrect_number', 'incorrect_number', 'Your card number is incorrect.'),
    }
  );
}
