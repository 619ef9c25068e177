import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Card } from '../cards/card.entity';

/**
 * What the payment page calls a customer's saved card (contract §15): a reference that means nothing
 * outside this transaction's page, never the card's token (a token charges the card through
 * auto-debit and deletes it through the card API; the page's HTML must not carry it).
 *
 * HMAC-SHA256 of the session id keyed with the card's token, base64url: the same on every
 * replica and every load of the page (no state to keep), different on every other transaction's
 * page, and no way back to the token.
 */
export function pageReferenceOf(card: Card, sessionId: string): string {
  return createHmac('sha256', card.token).update(`checkout-page\0${sessionId}`, 'utf8').digest('base64url');
}

/** The card among `cards` (the page's) that `reference` names on this session's page, or null. */
export function cardOfPageReference(cards: Card[], sessionId: string, reference: string): Card | null {
  const sent = Buffer.from(reference, 'utf8');
  return (
    cards.find((card) => {
      const expected = Buffer.from(pageReferenceOf(card, sessionId), 'utf8');
      return expected.length === sent.length && timingSafeEqual(expected, sent);
    }) ?? null
  );
}
