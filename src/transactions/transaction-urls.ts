/** Public URLs of a transaction's pages (the pages themselves live in the checkout module). */
export const checkoutUrl = (base: string, sessionId: string): string =>
  `${base}/b/checkout/redirect/start/?session_id=${sessionId}`;
export const paymentPageUrl = (base: string, sessionId: string, pgCode: string): string =>
  `${base}/b/checkout/pay/${encodeURIComponent(pgCode)}/?session_id=${sessionId}`;
export const defaultGatewayIcon = (base: string, pg: string): string =>
  `${base}/b/checkout/static/icons/${encodeURIComponent(pg)}.svg`;
