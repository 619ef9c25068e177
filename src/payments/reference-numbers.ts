import { randomHex } from '../common/random/random-pool';

/**
 * The length of an attempt's reference number (the `reference_number` of contract §6, each
 * provider's order id / track id): 19 upper-case hex characters (76 random bits). 19 is KNET's
 * limit for the track id it takes back as the inquiry and refund `transid` (K-064 §3.5.3–3.5.4,
 * contract §20.1), and every other provider takes at least that (MPGS `order.id` ≤ 40, Stripe
 * metadata ≤ 500), so one reference serves every driver and the merchant sees the id the provider
 * has.
 */
export const REFERENCE_NUMBER_LENGTH = 19;

/** A new attempt's reference number (unique by the attempts' unique key; a clash fails the insert). */
export function newReferenceNumber(): string {
  return randomHex(10).toUpperCase().slice(0, REFERENCE_NUMBER_LENGTH);
}
