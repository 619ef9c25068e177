/**
 * What the simulator serves to browsers: `checkout.min.js` and the Hosted Payment Page.
 *
 * The script offers what Checkout's page uses of the real one
 * (https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/js-libraries/checkout/):
 * `Checkout.configure({session: {id}})` (a session id of 31 to 35 characters) then
 * `Checkout.showPaymentPage()`, which takes the browser to the gateway's page for that session.
 * Problems go to the global function named by the script tag's `data-error`, else are thrown.
 */
export const CHECKOUT_SCRIPT = `(function () {
  'use strict';
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src).origin : window.location.origin;
  var errorCallback = script && script.getAttribute('data-error');
  var configured = null;
  function fail(explanation) {
    var error = { cause: 'INVALID_REQUEST', explanation: explanation };
    if (errorCallback && typeof window[errorCallback] === 'function') window[errorCallback](error);
    else throw new Error(explanation);
  }
  window.Checkout = {
    configure: function (configuration) {
      var id = configuration && configuration.session && configuration.session.id;
      if (typeof id !== 'string' || id.length < 31 || id.length > 35) {
        return fail('session.id must be a session id of 31 to 35 characters');
      }
      configured = configuration;
    },
    showPaymentPage: function () {
      if (!configured) return fail('Checkout.configure must be called first');
      window.location.assign(origin + '/checkout/pay/' + encodeURIComponent(configured.session.id));
    },
    showEmbeddedPage: function () {
      fail('Checkout.showEmbeddedPage is not simulated');
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
