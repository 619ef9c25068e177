/**
 * What the simulator serves to browsers: `checkout.min.js` and the Hosted Payment Page.
 *
 * The script offers what Checkout's page uses of the real one
 * (https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/js-libraries/checkout/):
 * `Checkout.configure({session: {id}})` then `Checkout.showPaymentPage()`, which takes the
 * browser to the gateway's page for that session.
 */
export const CHECKOUT_SCRIPT = `(function () {
  'use strict';
  var source = document.currentScript && document.currentScript.src;
  var origin = source ? new URL(source).origin : window.location.origin;
  var configured = null;
  window.Checkout = {
    configure: function (configuration) {
      if (!configuration || !configuration.session || typeof configuration.session.id !== 'string') {
        throw new Error('Checkout.configure: session.id is required');
      }
      configured = configuration;
    },
    showPaymentPage: function () {
      if (!configured) throw new Error('Checkout.showPaymentPage: call Checkout.configure first');
      window.location.assign(origin + '/checkout/pay/' + encodeURIComponent(configured.session.id));
    },
    showEmbeddedPage: function () {
      throw new Error('Checkout.showEmbeddedPage is not simulated');
    }
  };
})();
`;

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The Hosted Payment Page of one session: card number, expiry, security code; Pay or Cancel. */
export function hostedPage(view: {
  sessionId: string;
  merchantName: string;
  amount: string;
  currency: string;
  description: string | null;
  problem: string | null;
}): string {
  const action = `/checkout/pay/${encodeURIComponent(view.sessionId)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(view.merchantName)} – Payment</title></head>
<body>
<h1>${escape(view.merchantName)}</h1>
<p id="amount">${escape(view.amount)} ${escape(view.currency)}</p>
${view.description ? `<p id="description">${escape(view.description)}</p>` : ''}
${view.problem ? `<p role="alert">${escape(view.problem)}</p>` : ''}
<form method="post" action="${action}">
  <label>Card number <input name="cardNumber" autocomplete="cc-number" inputmode="numeric"></label>
  <label>Expiry date (MM/YY) <input name="expiry" autocomplete="cc-exp"></label>
  <label>Security code <input name="securityCode" autocomplete="cc-csc" inputmode="numeric"></label>
  <label>Cardholder name <input name="nameOnCard" autocomplete="cc-name"></label>
  <button type="submit" name="action" value="pay">Pay</button>
  <button type="submit" name="action" value="cancel">Cancel</button>
</form>
</body></html>`;
}

/** The page of a session that is unknown or already used. */
export function expiredPage(): string {
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Session expired</title></head><body><h1>This payment session is no longer valid.</h1></body></html>';
}
