import { randomBytes } from 'node:crypto';
import { html, raw } from '../common/html/html';
import type { PageLanguage } from './i18n';
import { stringsFor } from './i18n';
import { originOf, type PageScripts } from './page-response';
import { layout } from './templates';

/**
 * The page that hands the customer to a provider whose payment page is opened by the provider's own
 * script (contract §20 "Paying through a provider": MPGS Hosted Checkout). It loads the provider's
 * `checkout.min.js` and one small inline script of ours, which calls
 * `Checkout.configure({session: {id}})` then `Checkout.showPaymentPage()`
 * (https://developer.mastercard.com/mastercard-gateway/documentation/api-reference/js-libraries/checkout/).
 * The page's CSP lets nothing else run: the provider's origin and our script's nonce.
 */

/** The global function the provider's script calls on a problem (its tag's `data-error`). */
const ERROR_CALLBACK = 'checkoutProviderError';

/**
 * Our one script: the session id comes from the page (an escaped attribute), never from script
 * text; a missing `Checkout` (the provider's script did not load) or an error shows the failure.
 */
const HAND_OVER_SCRIPT = `(function () {
  var failed = document.getElementById('provider-failed');
  var session = document.getElementById('provider-session').getAttribute('data-session-id');
  function fail() { failed.hidden = false; }
  window.${ERROR_CALLBACK} = fail;
  if (typeof window.Checkout === 'undefined') return fail();
  try {
    window.Checkout.configure({ session: { id: session } });
    window.Checkout.showPaymentPage();
  } catch (error) {
    fail();
  }
})();`;

export interface ProviderScriptView {
  merchantName: string;
  /** The provider's script, e.g. `{api_base_url}/static/checkout/checkout.min.js`. */
  scriptUrl: string;
  /** The provider's session the script opens. */
  sessionId: string;
  /** Our checkout page, to go back to when the provider's page cannot be opened. */
  checkoutUrl: string;
}

export interface ProviderScriptPage {
  html: string;
  scripts: PageScripts;
  /** The provider's origin: its script may navigate (or post) the customer there. */
  formTargets: string[];
}

/** Renders the page, with a fresh nonce for our script and the provider's origin for its own. */
export function providerScriptPage(view: ProviderScriptView, language: PageLanguage): ProviderScriptPage {
  const t = stringsFor(language);
  const nonce = randomBytes(18).toString('base64');
  const origin = originOf(view.scriptUrl);
  const body = html`<p
      class="notice notice-info"
      role="status"
      id="provider-session"
      data-session-id="${view.sessionId}"
    >
      ${t.providerPageNotice}
    </p>
    <p class="notice notice-warning" role="alert" id="provider-failed" data-testid="provider-failed" hidden>
      ${t.providerPageFailed}
    </p>
    <noscript><p class="notice notice-warning">${t.providerPageFailed}</p></noscript>
    <p><a href="${view.checkoutUrl}">${t.backToCheckout}</a></p>
    <script src="${view.scriptUrl}" data-error="${ERROR_CALLBACK}"></script>
    <script nonce="${nonce}">
      ${raw(HAND_OVER_SCRIPT)};
    </script>`;
  return {
    html: layout({ language, title: t.providerPageTitle, merchantName: view.merchantName, body }),
    scripts: { nonce, origins: origin ? [origin] : [] },
    formTargets: origin ? [origin] : [],
  };
}
