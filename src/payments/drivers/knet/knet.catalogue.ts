import {
  textSetting,
  TIMEOUT_MS_SETTING,
  urlSetting,
  type GatewayDriver,
} from '../../../gateways/gateway-drivers';
import { isSandbox } from '../../../gateways/gateway.entity';
import { knetDefaultUrls } from '../../providers/knet/knet-client';

/** The `knet` driver's catalogue entry (contract §20; docs/gateways/knet.md). KWD only. */
export const KNET_CATALOGUE: GatewayDriver = {
  pg: 'knet',
  name: 'KNET',
  flow: 'redirect',
  settings: [
    textSetting('tranportal_id', 'The tranportal id KNET issued.', { required: true }),
    textSetting('tranportal_password', 'The tranportal password.', { required: true, secret: true }),
    textSetting('resource_key', 'The terminal resource key (16 characters).', {
      required: true,
      secret: true,
      length: 16,
    }),
    urlSetting(
      'payment_url',
      "KNET's payment page. Default: KNET's test host on a sandbox gateway, else production.",
    ),
    urlSetting(
      'inquiry_url',
      "KNET's tranPipe (inquiry, refund). Default: test host on a sandbox gateway, else production.",
    ),
    TIMEOUT_MS_SETTING,
    // Contract §20.1: KNET's page stops taking payment after a time limit (K-064 §10
    // IPAY0100042) whose length KNET does not publish; until it has passed an attempt whose
    // page KNET reports open is never written off (docs/gateways/knet.md).
    textSetting(
      'page_timeout_minutes',
      "How long (minutes) KNET's payment page takes a payment after it opens: ask KNET for the terminal's limit.",
      { default: 30, kind: 'integer', min: 1, max: 1440 },
    ),
  ],
  operations: ['refund', 'partial_refund'],
  tokenizable: false,
  currencies: ['KWD'],
  // KNET's hosts (K-064 §3.1, §3.7.2): the test ones on a sandbox gateway, production otherwise.
  gatewayDefaults: (gateway) => {
    const hosts = knetDefaultUrls(isSandbox(gateway));
    return { payment_url: hosts.paymentUrl, inquiry_url: hosts.inquiryUrl };
  },
};
