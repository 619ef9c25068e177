import type { Card } from './card.entity';
import { isExpired } from './card-input';
import type { CardDto } from './dto/card.dto';

/**
 * The card object of contract §15 (API answers and the `token` of a payment's webhook).
 * `cvvRequired`: whether its gateway's payment page asks the CVC (`GatewayDrivers.savedCardAsksCvc`).
 */
export function toCardDto(card: Card, cvvRequired: boolean, now: Date = new Date()): CardDto {
  return {
    token: card.token,
    customer_id: card.customerId,
    pg_code: card.pgCode,
    brand: card.brand,
    name_on_card: card.nameOnCard,
    number: `**** ${card.last4}`,
    expiry_month: String(card.expiryMonth).padStart(2, '0'),
    expiry_year: String(card.expiryYear),
    is_expired: isExpired(card.expiryMonth, card.expiryYear, now),
    cvv_required: cvvRequired,
    is_preferred: card.isPreferred,
    agreements: card.agreements,
    created_at: card.createdAt.toISOString(),
  };
}
