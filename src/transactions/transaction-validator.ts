import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { addFieldError, FieldErrors, FieldErrorTree, PermissionDenied } from '../common/errors/domain-errors';
import { significantDecimals } from '../common/money/money';
import { isBlockedLiteralHost } from '../common/net/private-address';
import { toFieldErrorTree } from '../common/validation/validation-errors';
import { AppConfig } from '../config/app-config';
import { Currency } from '../currencies/currency.entity';
import { CurrenciesService } from '../currencies/currencies.service';
import { Gateway } from '../gateways/gateway.entity';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import { mayUseGateway, Principal } from '../auth/principal';
import { CreateTransactionDto } from './dto/create-transaction.dto';
import { REQUIRED_FIELDS } from './request-fields';
import { isSavingPaymentType, NOTIFICATION_CHANNELS } from './transaction-state';
import { TransactionsRepository } from './transactions.repository';

export interface ValidTransactionInput {
  dto: CreateTransactionDto;
  currency: Currency;
  gateway: Gateway;
}

export interface ValidationContext {
  principal: Principal;
  /** The stored transaction on update (its id is excluded from the order_no check). */
  existingId?: string;
  /** Whether an attachment is stored or arrives with this request. */
  hasAttachment: boolean;
}

/**
 * Every rule of contract §4, run on the whole (merged, on update) input: field rules from the DTO,
 * then the rules that need stored data. Reports every violation together; throws 403 when the
 * caller may not use the gateway code.
 */
@Injectable()
export class TransactionValidator {
  constructor(
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly transactions: TransactionsRepository,
    private readonly config: AppConfig,
    private readonly drivers: GatewayDrivers,
  ) {}

  async validate(input: Record<string, unknown>, context: ValidationContext): Promise<ValidTransactionInput> {
    const fields = withoutBlankOptionals(input);
    const channelErrors = unknownChannelErrors(fields.notifications);
    const dto = plainToInstance(CreateTransactionDto, withoutPrototypeKeys(omit(fields, 'extra')));
    // `extra` is the merchant's free data: kept as sent, never walked by class-transformer.
    if (Object.hasOwn(fields, 'extra')) dto.extra = fields.extra as Record<string, unknown>;
    const errors = toFieldErrorTree(await validate(dto, { whitelist: true, forbidUnknownValues: false }));
    for (const [channel, message] of channelErrors)
      addFieldError(errors, `notifications.${channel}`, message);

    const code = errors.pg_codes ? undefined : dto.pg_codes[0];
    if (code !== undefined && !mayUseGateway(context.principal, code)) {
      throw new PermissionDenied(`You do not have permission to use gateway code "${code}".`);
    }
    const [currency, gateway] = await Promise.all([
      errors.currency_code ? null : this.currencies.lookup(dto.currency_code),
      code === undefined ? null : this.gateways.lookup(code),
    ]);

    if (!errors.currency_code && !currency) {
      addFieldError(errors, 'currency_code', `"${dto.currency_code}" is not a configured currency.`);
    }
    if (code !== undefined && (!gateway || !gateway.isActive)) {
      addFieldError(errors, 'pg_codes', `"${code}" is not a valid gateway code.`);
    }
    if (currency && gateway?.isActive && !gateway.currencies.includes(currency.code)) {
      addFieldError(
        errors,
        'currency_code',
        `Currency "${currency.code}" is not accepted by gateway "${gateway.code}".`,
      );
    }
    if (!errors.amount && currency && significantDecimals(dto.amount) > currency.digits) {
      addFieldError(
        errors,
        'amount',
        `Ensure that there are no more than ${currency.digits} decimal places for ${currency.code}.`,
      );
    }
    // contract §20.1: an amount the gateway's provider cannot charge (Stripe's rule) is refused
    // before anything is stored, rather than failing when the customer pays.
    const providerProblem =
      !errors.amount && currency && gateway?.isActive
        ? this.drivers.amountProblem(gateway.pg, dto.amount, currency.code)
        : null;
    if (providerProblem) addFieldError(errors, 'amount', providerProblem);
    this.checkFieldDependencies(dto, gateway, context, errors);
    checkCardSaving(dto, gateway, currency, errors);
    if (
      !errors.webhook_url &&
      dto.webhook_url &&
      !this.config.webhookAllowPrivate &&
      isBlockedLiteralHost(dto.webhook_url)
    ) {
      addFieldError(
        errors,
        'webhook_url',
        'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
      );
    }
    if (
      !errors.order_no &&
      dto.order_no &&
      (await this.transactions.isOrderNoLive(dto.order_no, context.existingId))
    ) {
      addFieldError(errors, 'order_no', 'A live transaction with this order_no already exists.');
    }

    if (Object.keys(errors).length) throw new FieldErrors(errors);
    return { dto, currency: currency!, gateway: gateway! };
  }

  private checkFieldDependencies(
    dto: CreateTransactionDto,
    gateway: Gateway | null,
    context: ValidationContext,
    errors: FieldErrorTree,
  ): void {
    const notifications = errors.notifications ? undefined : dto.notifications;
    if (notifications?.email?.length && !dto.customer_email && !errors.customer_email) {
      addFieldError(errors, 'customer_email', 'This field is required when notifications.email is set.');
    }
    if (notifications?.sms?.length && !dto.customer_phone && !errors.customer_phone) {
      addFieldError(errors, 'customer_phone', 'This field is required when notifications.sms is set.');
    }
    if (gateway?.requireCustomerPhone && !dto.customer_phone && !errors.customer_phone) {
      addFieldError(errors, 'customer_phone', `This field is required by gateway "${gateway.code}".`);
    }
    if (dto.shortify_attachment_url && !context.hasAttachment && !errors.shortify_attachment_url) {
      addFieldError(errors, 'shortify_attachment_url', 'An attachment is required to shortify its URL.');
    }
  }
}

/**
 * contract §15: saving a card needs the customer it belongs to and a gateway that can tokenize;
 * charging it later needs the agreement, whose limits are checked against the currency.
 */
function checkCardSaving(
  dto: CreateTransactionDto,
  gateway: Gateway | null,
  currency: Currency | null,
  errors: FieldErrorTree,
): void {
  const paymentType = errors.payment_type ? undefined : dto.payment_type;
  if (paymentType && isSavingPaymentType(paymentType)) {
    if (!dto.customer_id && !errors.customer_id) {
      addFieldError(errors, 'customer_id', `This field is required when payment_type is "${paymentType}".`);
    }
    if (gateway?.isActive && !gateway.tokenizable) {
      addFieldError(errors, 'payment_type', `Gateway "${gateway.code}" cannot save cards.`);
    }
  }
  if (paymentType === 'auto_debit' && !dto.agreement && !errors.agreement) {
    addFieldError(errors, 'agreement', 'This field is required when payment_type is "auto_debit".');
  }
  const agreement = errors.agreement ? undefined : dto.agreement;
  if (!agreement) return;
  if (
    agreement.max_amount_per_cycle &&
    currency &&
    significantDecimals(agreement.max_amount_per_cycle) > currency.digits
  ) {
    addFieldError(
      errors,
      'agreement.max_amount_per_cycle',
      `Ensure that there are no more than ${currency.digits} decimal places for ${currency.code}.`,
    );
  }
  if (agreement.start_date && agreement.expiry_date && agreement.expiry_date < agreement.start_date) {
    addFieldError(errors, 'agreement.expiry_date', 'Ensure this date is on or after start_date.');
  }
}

/** Optional fields whose representation is never `""`: a blank one is a wrong value, not "unset". */
const NEVER_ECHOED_BLANK = new Set(['expiration_time']);

/**
 * An empty string for an optional field means "not set", like `null` (docs/decisions.md): unset
 * fields are echoed as `""`, so a representation sent back must validate, and HTML forms send
 * empty inputs as `""` (the form decoder drops a blank `expiration_time` before this). Required
 * fields keep theirs and fail their own rule.
 */
function withoutBlankOptionals(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input).filter(
      ([key, value]) => value !== '' || REQUIRED_FIELDS.has(key) || NEVER_ECHOED_BLANK.has(key),
    ),
  );
}

function omit(input: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([name]) => name !== key));
}

/**
 * A copy without keys named like Object.prototype members (`constructor`, `__proto__`, `toString`…),
 * at any depth. No DTO field has such a name, so whitelisting would drop them anyway; dropping
 * them first keeps class-transformer from tripping over them (a 500 otherwise).
 */
function withoutPrototypeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPrototypeKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !(key in Object.prototype))
      .map(([key, item]) => [key, withoutPrototypeKeys(item)]),
  );
}

const UNKNOWN_CHANNEL = `Unknown notification channel: use ${NOTIFICATION_CHANNELS.map((c) => `"${c}"`).join(' or ')}.`;

/**
 * `notifications` keys that name no channel (in any case: keys are case-insensitive), each with
 * its error: refused by name, never silently dropped (the merchant would wait for messages).
 */
function unknownChannelErrors(notifications: unknown): [string, string][] {
  if (typeof notifications !== 'object' || notifications === null || Array.isArray(notifications)) return [];
  return Object.keys(notifications)
    .filter((key) => !(NOTIFICATION_CHANNELS as readonly string[]).includes(key.toLowerCase()))
    .map((key) => [key, UNKNOWN_CHANNEL]);
}
