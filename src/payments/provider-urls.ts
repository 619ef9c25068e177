import type { RedirectUrls } from './adapters/gateway-adapter';

/** The browser's parameters on the return URL that are ours (the rest is the provider's). */
export const RETURN_REFERENCE_PARAM = 'ref';
export const RETURN_CANCEL_PARAM = 'cancel';

/** Our return, cancel and notify URLs for an attempt (contract §20), on PUBLIC_BASE_URL. */
export function attemptUrls(publicBaseUrl: string, code: string, referenceNumber: string): RedirectUrls {
  const base = `${publicBaseUrl}/b/checkout/v1/gateways/${encodeURIComponent(code)}`;
  const ref = `${RETURN_REFERENCE_PARAM}=${encodeURIComponent(referenceNumber)}`;
  return {
    returnUrl: `${base}/return/?${ref}`,
    cancelUrl: `${base}/return/?${ref}&${RETURN_CANCEL_PARAM}=1`,
    notifyUrl: `${base}/notify/`,
  };
}
