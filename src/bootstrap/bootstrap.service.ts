import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { ApiKeysService } from '../auth/api-keys/api-keys.service';
import { UsersService } from '../auth/users/users.service';
import { AppConfig } from '../config/app-config';
import { CurrenciesService } from '../currencies/currencies.service';
import { GatewaySettings } from '../gateways/gateway-settings';
import { GATEWAY_DEFAULTS, GatewaysService } from '../gateways/gateways.service';
import { generatedPassword } from './generated-password';

const DEMO_CURRENCIES = ['KWD', 'USD', 'EUR', 'GBP', 'SAR', 'AED', 'BHD', 'QAR', 'OMR', 'EGP', 'JPY'];

/**
 * Start-up data (contract §8 "Bootstrap"): the admin from ADMIN_USERNAME/ADMIN_PASSWORD; and on the
 * embedded default with neither set, a first start creates an admin, an API key, demo currencies
 * and a `sandbox` gateway, and prints the credentials once (to stdout, not to the log), with the
 * `export` lines the README's tour starts from. On MySQL with no user at all, the log says how to
 * create the first admin (`npm run admin:create`). Gateways whose secrets cannot be decrypted are
 * reported (an error line each).
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly apiKeys: ApiKeysService,
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly adminConfig: AdminConfigService,
    private readonly gatewaySettings: GatewaySettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.adminUsername && this.config.adminPassword) {
      await this.users.ensureAdmin(this.config.adminUsername, this.config.adminPassword);
      this.logger.log(`Admin user "${this.config.adminUsername}" is ready`);
    } else if (this.config.isEmbeddedDatabase && (await this.users.count()) === 0) {
      await this.firstStart();
    } else if (!this.config.isEmbeddedDatabase && (await this.users.count()) === 0) {
      this.logger.warn(
        'This database has no user yet. Create the first admin with `npm run admin:create` ' +
          '(DATABASE_URL set as for the service; it prints a generated password once, or takes ' +
          'ADMIN_USERNAME and ADMIN_PASSWORD), or start with ADMIN_USERNAME and ADMIN_PASSWORD set. ' +
          'Then add currencies, a gateway and an API key through the admin API (README, "With MySQL / MariaDB").',
      );
    }
    await this.reportUnreadableSecrets();
  }

  /**
   * Gateway secrets this service cannot decrypt (contract §20.1): said at start, one error line per
   * gateway naming its secrets, rather than first by a route that needs them (which answers 503).
   */
  private async reportUnreadableSecrets(): Promise<void> {
    let gateways;
    try {
      gateways = await this.gateways.list();
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not check the gateways’ secrets at start');
      return;
    }
    for (const gateway of gateways) {
      const secrets = this.gatewaySettings.unreadableSecrets(gateway);
      if (secrets.length === 0) continue;
      this.logger.error(
        { gateway: gateway.code, secrets },
        `Gateway "${gateway.code}": the secrets ${secrets.join(', ')} cannot be decrypted with SECRETS_KEY ` +
          '(nor SECRETS_KEY_PREVIOUS): they were saved under another key. The gateway cannot be used ' +
          '(its routes answer 503) until the service runs with that key (as SECRETS_KEY, or ' +
          'SECRETS_KEY_PREVIOUS while `npm run secrets:rotate` re-encrypts them), or they are saved again.',
      );
    }
  }

  private async firstStart(): Promise<void> {
    const password = generatedPassword();
    await this.users.create({ username: 'admin', password, isAdmin: true, gatewayCodes: ['sandbox'] });
    const { key } = await this.apiKeys.issue('dev key (first start)');
    for (const code of DEMO_CURRENCIES) {
      if (!(await this.currencies.findByCode(code))) await this.currencies.create(code);
    }
    if (!(await this.gateways.findByCode('sandbox'))) {
      await this.gateways.create({
        ...GATEWAY_DEFAULTS,
        code: 'sandbox',
        name: 'Sandbox card',
        pg: 'sandbox',
        type: 'sandbox',
        tokenizable: true,
        currencies: DEMO_CURRENCIES,
      });
    }
    const base = this.config.publicBaseUrl;
    process.stdout.write(
      [
        '',
        '================ Checkout: first start ================',
        'Created on the embedded database (shown only this once):',
        `  admin user : admin / ${password}`,
        `  API key    : ${key}`,
        `  gateway    : sandbox (test cards: 4111 1111 1111 1111 pays, 4000 0000 0000 0002 declines)`,
        '',
        "For the README's examples, paste these into your shell:",
        `  export CHECKOUT_URL=${base}`,
        `  export CHECKOUT_API_KEY='${key}'`,
        `  export CHECKOUT_ADMIN_PASSWORD='${password}'`,
        '',
        'Create a payment transaction:',
        `  curl -s -X POST ${base}/b/checkout/v1/pymt-txn/ \\`,
        `    -H 'Authorization: Api-Key ${key}' \\`,
        `    -H 'Content-Type: application/json' \\`,
        `    -d '{"type": "e_commerce", "amount": "10.000", "currency_code": "KWD", "pg_codes": ["sandbox"]}'`,
        '',
        `API docs: ${base}/docs`,
        '=======================================================',
        '',
      ].join('\n'),
    );
  }
}
