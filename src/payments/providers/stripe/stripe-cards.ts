import type Stripe from 'stripe';

/**
 * A card saved through Stripe (contract §15, §20): a PaymentMethod (`pm_…`) attached to a Customer
 * (`cus_…`) and set up for off-session use. Charging it later needs both ids
 * (https://docs.stripe.com/payments/save-during-payment#charge-saved-payment-method), so our gateway
 * token of the card holds both: `<customer>/<payment method>`. Stripe's ids are letters, digits and
 * underscores, so the slash cannot occur inside either.
 */
export interface StripeSavedCard {
  customer: string;
  paymentMethod: string;
}

const ID = /^[A-Za-z0-9_]{1,100}$/;

/** The gateway token of a saved card. */
export function stripeCardToken(card: StripeSavedCard): string {
  return `${card.customer}/${card.paymentMethod}`;
}

/** The Customer and PaymentMethod of a gateway token; null when it is not one of ours. */
export function readStripeCardToken(token: string): StripeSavedCard | null {
  const [customer, paymentMethod, ...rest] = token.split('/');
  if (rest.length || !customer || !paymentMethod) return null;
  if (!customer.startsWith('cus_') || !ID.test(customer) || !ID.test(paymentMethod)) return null;
  return { customer, paymentMethod };
}

/**
 * Stripe's card brands (`card.brand`: https://docs.stripe.com/api/payment_methods/object#payment_method_object-card-brand)
 * as shown on our pages and in the card object, spelled as the sandbox spells them (card-validator's
 * `niceType`).
 */
const BRANDS: Readonly<Record<string, string>> = {
  amex: 'American Express',
  cartes_bancaires: 'Cartes Bancaires',
  diners: 'Diners Club',
  discover: 'Discover',
  eftpos_au: 'eftpos Australia',
  jcb: 'JCB',
  link: 'Link',
  mastercard: 'Mastercard',
  unionpay: 'UnionPay',
  visa: 'Visa',
};

export function brandName(brand: string | null | undefined): string {
  return (brand && BRANDS[brand]) || 'Card';
}

/** The PaymentMethod of a PaymentIntent, when it was expanded (an id alone says nothing of the card). */
export function expandedPaymentMethod(intent: Stripe.PaymentIntent): Stripe.PaymentMethod | null {
  return typeof intent.payment_method === 'object' ? intent.payment_method : null;
}

/** The Customer id of a PaymentIntent (an id, or the object when expanded). */
export function customerIdOf(intent: Stripe.PaymentIntent): string | null {
  const customer = intent.customer;
  if (!customer) return null;
  return typeof customer === 'string' ? customer : customer.id;
}
