import 'reflect-metadata';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Test } from '@nestjs/testing';
import type { Principal } from '../auth/principal';
import { FieldErrors, PermissionDenied } from '../common/errors/domain-errors';
import { AppConfig, loadConfig } from '../config/app-config';
import { CurrenciesService } from '../currencies/currencies.service';
import type { Currency } from '../currencies/currency.entity';
import type { Gateway } from '../gateways/gateway.entity';
import { DRIVER_CATALOGUE, GatewayDrivers, type DriverCatalogueEntry } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import { TransactionValidator, type ValidationContext } from './transaction-validator';
import { TransactionsRepository } from './transactions.repository';

const CURRENCIES: Record<string, Pick<Currency, 'code' | 'digits'>> = {
  KWD: { code: 'KWD', digits: 3 },
  USD: { code: 'USD', digits: 2 },
};
const gateway = (overrides: Partial<Gateway>): Gateway =>
  ({
    code: 'sandbox',
    type: 'sandbox',
    operation: 'purchase',
    currencies: ['KWD', 'USD'],
    requireCustomerPhone: false,
    isActive: true,
    ...overrides,
  }) as Gateway;
const GATEWAYS: Record<string, Gateway> = {
  sandbox: gateway({}),
  'usd-only': gateway({ code: 'usd-only', currencies: ['USD'] }),
  retired: gateway({ code: 'retired', isActive: false }),
  phone: gateway({ code: 'phone', requireCustomerPhone: true }),
  stripe: gateway({ code: 'stripe', pg: 'stripe' }),
};
/**
 * The catalogue's entry of a provider with an amount rule, as the `stripe` driver's entry has one
 * (its rule itself is tested with the Stripe driver: stripe-amounts.spec.ts and
 * test/operations/stripe-amount-rule.e2e-spec.ts); the validator asks it through GatewayDrivers.
 */
const STRIPE_LIKE: DriverCatalogueEntry = {
  pg: 'stripe',
  name: 'Stripe',
  flow: 'redirect',
  settings: [],
  operations: [],
  tokenizable: false,
  currencies: null,
  amountProblem: (amount, currency) =>
    currency === 'KWD' && Math.round(Number(amount) * 1000) % 10 !== 0
      ? 'Stripe charges KWD in multiples of 0.010: the last of the three decimals must be 0.'
      : null,
};
/** order_no → the id of the live transaction holding it. */
const LIVE_ORDER_NOS = new Map([['ORD-LIVE', '7']]);

const API_KEY: Principal = { kind: 'api-key', apiKeyId: 1, name: 'k' };
const MERCHANT: Principal = {
  kind: 'user',
  userId: 2,
  username: 'm',
  gatewayCodes: ['sandbox'],
  isAdmin: false,
};
const context = (overrides: Partial<ValidationContext> = {}): ValidationContext => ({
  principal: API_KEY,
  hasAttachment: false,
  ...overrides,
});
const body = (overrides: Record<string, unknown> = {}) => ({
  type: 'e_commerce',
  amount: '86.5',
  currency_code: 'KWD',
  pg_codes: ['sandbox'],
  ...overrides,
});

/**
 * The service tier: TransactionValidator with its collaborators replaced at the edges (stored
 * currencies, gateways and live order numbers), so every contract §4 rule that needs stored data is
 * checked without a database or HTTP.
 */
describe('TransactionValidator', () => {
  let validator: TransactionValidator;

  before(async () => {
    const moduleRef = await Test.createTestingModule({
      providers: [
        TransactionValidator,
        GatewayDrivers,
        { provide: DRIVER_CATALOGUE, useValue: [STRIPE_LIKE] },
        { provide: AppConfig, useValue: loadConfig({}) },
        {
          provide: CurrenciesService,
          useValue: { lookup: (code: string) => Promise.resolve(CURRENCIES[code] ?? null) },
        },
        {
          provide: GatewaysService,
          useValue: { lookup: (code: string) => Promise.resolve(GATEWAYS[code] ?? null) },
        },
        {
          provide: TransactionsRepository,
          useValue: {
            isOrderNoLive: (orderNo: string, exceptId?: string) =>
              Promise.resolve(LIVE_ORDER_NOS.has(orderNo) && LIVE_ORDER_NOS.get(orderNo) !== exceptId),
          },
        },
      ],
    }).compile();
    validator = moduleRef.get(TransactionValidator);
  });

  const errorsOf = async (input: Record<string, unknown>, ctx = context()) => {
    try {
      await validator.validate(input, ctx);
    } catch (error) {
      if (error instanceof FieldErrors) return error.errors;
      throw error;
    }
    assert.fail('expected field errors');
  };

  it('accepts a valid body and hands back its currency and gateway', async () => {
    const valid = await validator.validate(body(), context());
    assert.equal(valid.currency.code, 'KWD');
    assert.equal(valid.gateway.code, 'sandbox');
    assert.equal(valid.dto.amount, '86.5');
  });

  it('refuses an unknown currency, an inactive or unknown gateway, together', async () => {
    assert.deepEqual(await errorsOf(body({ currency_code: 'EUR', pg_codes: ['retired'] })), {
      currency_code: ['"EUR" is not a configured currency.'],
      pg_codes: ['"retired" is not a valid gateway code.'],
    });
    assert.deepEqual(await errorsOf(body({ pg_codes: ['nope'] })), {
      pg_codes: ['"nope" is not a valid gateway code.'],
    });
  });

  it("refuses a currency the gateway does not take, and more decimals than the currency's", async () => {
    assert.deepEqual(await errorsOf(body({ pg_codes: ['usd-only'] })), {
      currency_code: ['Currency "KWD" is not accepted by gateway "usd-only".'],
    });
    assert.deepEqual(await errorsOf(body({ currency_code: 'USD', amount: '1.005' })), {
      amount: ['Ensure that there are no more than 2 decimal places for USD.'],
    });
  });

  it("refuses an amount the gateway's provider cannot charge (Stripe: KWD in multiples of 0.010)", async () => {
    assert.deepEqual(await errorsOf(body({ pg_codes: ['stripe'], amount: '5.125' })), {
      amount: ['Stripe charges KWD in multiples of 0.010: the last of the three decimals must be 0.'],
    });
    assert.equal(
      (await validator.validate(body({ pg_codes: ['stripe'], amount: '5.12' }), context())).dto.amount,
      '5.12',
    );
    // The same amount on a gateway whose provider takes thousandths, and the currency's own rule first.
    assert.equal((await validator.validate(body({ amount: '5.125' }), context())).dto.amount, '5.125');
    assert.deepEqual(await errorsOf(body({ pg_codes: ['stripe'], amount: '5.1255' })), {
      amount: ['Ensure that there are no more than 3 decimal places for KWD.'],
    });
  });

  it('lets a user use only its gateway codes (403, before any other rule)', async () => {
    await assert.rejects(
      validator.validate(body({ pg_codes: ['phone'], amount: 'x' }), context({ principal: MERCHANT })),
      PermissionDenied,
    );
    assert.equal(
      (await validator.validate(body(), context({ principal: MERCHANT }))).gateway.code,
      'sandbox',
    );
  });

  it('refuses an order_no a live transaction holds, except the transaction being updated', async () => {
    assert.deepEqual(await errorsOf(body({ order_no: 'ORD-LIVE' })), {
      order_no: ['A live transaction with this order_no already exists.'],
    });
    assert.equal(
      (await validator.validate(body({ order_no: 'ORD-FREE' }), context())).dto.order_no,
      'ORD-FREE',
    );
    const ownUpdate = await validator.validate(body({ order_no: 'ORD-LIVE' }), context({ existingId: '7' }));
    assert.equal(ownUpdate.dto.order_no, 'ORD-LIVE');
  });

  it('needs the contact a notification channel or the gateway asks for', async () => {
    assert.deepEqual(await errorsOf(body({ notifications: { email: ['paid'], sms: ['paid'] } })), {
      customer_email: ['This field is required when notifications.email is set.'],
      customer_phone: ['This field is required when notifications.sms is set.'],
    });
    assert.deepEqual(await errorsOf(body({ pg_codes: ['phone'] })), {
      customer_phone: ['This field is required by gateway "phone".'],
    });
  });

  it('refuses a webhook to a private address and shortify_attachment_url without an attachment', async () => {
    assert.deepEqual(
      await errorsOf(body({ webhook_url: 'http://127.0.0.1/hook', shortify_attachment_url: true })),
      {
        webhook_url: [
          'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
        ],
        shortify_attachment_url: ['An attachment is required to shortify its URL.'],
      },
    );
    const withFile = await validator.validate(
      body({ shortify_attachment_url: true }),
      context({ hasAttachment: true }),
    );
    assert.equal(withFile.dto.shortify_attachment_url, true);
  });
});
