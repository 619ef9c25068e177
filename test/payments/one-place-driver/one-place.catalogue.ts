import {
  textSetting,
  TIMEOUT_MS_SETTING,
  type DriverCatalogueEntry,
} from '../../../src/gateways/gateway-drivers';

/**
 * The catalogue entry of the test suite's smallest driver (see one-place-driver.ts): what the drivers
 * endpoint shows, what the console's gateway form asks, what settings validation checks.
 */
export const ONE_PLACE_CATALOGUE: DriverCatalogueEntry = {
  pg: 'one-place',
  name: 'One place (test driver)',
  flow: 'redirect',
  settings: [
    textSetting('approval_code', 'The response code the provider approves with.', { required: true }),
    TIMEOUT_MS_SETTING,
  ],
  operations: ['refund'],
  tokenizable: false,
  currencies: ['KWD'],
};
