import {
  ALL_OPERATIONS,
  textSetting,
  TIMEOUT_MS_SETTING,
  urlSetting,
  type GatewayDriver,
} from '../../../gateways/gateway-drivers';

/** The `mpgs` driver's catalogue entry (contract §20; docs/gateways/mpgs.md). */
export const MPGS_CATALOGUE: GatewayDriver = {
  pg: 'mpgs',
  name: 'Mastercard Gateway (MPGS)',
  flow: 'redirect',
  settings: [
    textSetting('merchant_id', 'The merchant id the bank issued.', { required: true }),
    textSetting('api_password', 'The Integration (API) password of Merchant Administration.', {
      required: true,
      secret: true,
    }),
    urlSetting('api_base_url', "The bank's gateway host, e.g. https://test-gateway.mastercard.com.", {
      required: true,
    }),
    textSetting('api_version', 'The REST API version, 63 or more.', {
      default: 100,
      kind: 'integer',
      min: 63,
    }),
    textSetting(
      'notification_secret',
      'The webhook secret of Merchant Administration (X-Notification-Secret).',
      { secret: true },
    ),
    textSetting('merchant_name', 'The name shown on the Hosted Payment Page.'),
    TIMEOUT_MS_SETTING,
  ],
  // Capture (also partial), void, refund (also partial) as MPGS transaction operations; saved
  // cards are MPGS tokens (the merchant profile needs gateway tokenization).
  operations: ALL_OPERATIONS,
  tokenizable: true,
  currencies: null,
};
