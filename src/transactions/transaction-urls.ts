/** Public URLs of a transaction's pages (the pages themselves live in the checkout module). */
export const checkoutUrl = (base: string, sessionId: string): string =>
  `${base}/b/checkout/redirect/start/?session_id=${sessionId}`;
/** The hosted checkout page itself (`checkout_url` redirects here). */
export const checkoutPagePath = (sessionId: string): string => `/b/checkout/txn/${sessionId}`;
export const checkoutPageUrl = (base: string, sessionId: string): string =>
  `${base}${checkoutPagePath(sessionId)}`;
/** A PNG QR code of `checkout_url`, at an unguessable address (contract §16). */
export const qrCodeUrl = (base: string, token: string): string => `${base}/b/checkout/qr/${token}.png`;
export const paymentPageUrl = (base: string, sessionId: string, pgCode: string): string =>
  `${base}/b/checkout/pay/${encodeURIComponent(pgCode)}/?session_id=${sessionId}`;
