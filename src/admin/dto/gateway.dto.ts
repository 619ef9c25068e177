import type { SettingValue } from '../../gateways/gateway-drivers';
import { ApiHideProperty, ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { BoolField, ChoiceField, TextField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { GATEWAY_FLOWS, GATEWAY_OPERATIONS, GATEWAY_TYPES } from '../../gateways/gateway.entity';
import { MSG } from '../../common/validation/messages';
import { CodeListField, DecimalTextField, NameField, PatternField, UrlOrEmptyField } from './admin-fields';
import { ADMIN_LIMITS, CURRENCY_CODE, GATEWAY_CODE, PG_NAME } from './admin-limits';

const toUpper = (value: string): string => value.toUpperCase();
const FEE = { integerDigits: ADMIN_LIMITS.feeIntegerDigits, decimals: ADMIN_LIMITS.feeDecimals };

/** A gateway settings instance ("pg code"). */
export class GatewayDto {
  @ApiProperty({ example: 'sandbox', pattern: GATEWAY_CODE.source }) code: string;
  @ApiProperty({ example: 'Sandbox card' }) name: string;
  @ApiProperty({ example: 'sandbox' }) pg: string;
  @ApiProperty({ enum: [...GATEWAY_TYPES] }) type: string;
  @ApiProperty({ enum: [...GATEWAY_OPERATIONS] }) operation: string;
  @ApiProperty({ type: String, isArray: true, example: ['KWD', 'USD'] }) currencies: string[];
  @ApiProperty({ example: '0.5', description: 'Decimal string' }) fee_fixed: string;
  @ApiProperty({ example: '2.5', description: 'Decimal string (percent of the amount)' }) fee_percent: string;
  @ApiProperty({ example: '', description: 'Icon URL; "" means the default icon of its pg' }) icon: string;
  @ApiProperty({ enum: [...GATEWAY_FLOWS] }) flow: string;
  @ApiProperty() require_customer_phone: boolean;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ description: 'Can save cards for later charges (contract §15)' }) tokenizable: boolean;
  @ApiProperty({ description: 'Shown to the customer on the payment page (cash: where and how to pay)' })
  instructions: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      oneOf: [
        { type: 'string' },
        { type: 'integer' },
        { type: 'boolean' },
        {
          type: 'array',
          description: "A routing gateway's routes (contract §21)",
          items: {
            type: 'object',
            properties: {
              gateway: { type: 'string' },
              weight: { type: 'integer', minimum: 1, maximum: 100 },
            },
            required: ['gateway'],
          },
        },
      ],
    },
    example: { merchant_id: 'TEST0001', api_base_url: 'https://test-gateway.mastercard.com' },
    description: "The driver's settings as stored, secrets left out (contract §20)",
  })
  settings: Record<string, SettingValue>;
  @ApiProperty({
    type: String,
    isArray: true,
    example: ['api_password'],
    description: 'Names of the secret settings that hold a value (secrets are write-only)',
  })
  secrets_set: string[];
  @ApiProperty({
    type: String,
    isArray: true,
    required: true,
    example: [],
    description:
      'Names of the secret settings this service cannot decrypt (a SECRETS_KEY other than the one they ' +
      'were saved under): the gateway cannot be used (503) until the key is set or they are saved again; ' +
      '[] when every secret is readable',
  })
  secrets_unreadable?: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** `POST gateways/`. Left-out fields take their defaults. */
export class CreateGatewayDto {
  @PatternField(GATEWAY_CODE, LIMITS.gatewayCode, MSG.gatewayCode, {
    example: 'knet-main',
    description: 'Unique; immutable once created',
  })
  code: string;

  @NameField(LIMITS.gatewayName, { example: 'KNET' })
  name: string;

  @PatternField(PG_NAME, ADMIN_LIMITS.pg, MSG.pgName, {
    example: 'sandbox',
    description:
      'The driver: one of `GET /b/checkout/v1/admin/gateway-drivers/` (sandbox, cash, mpgs, knet, stripe)',
  })
  pg: string;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: {
      anyOf: [
        { type: 'string', nullable: true },
        { type: 'integer', nullable: true },
      ],
    },
    example: {
      merchant_id: 'TEST0001',
      api_password: '…',
      api_base_url: 'https://test-gateway.mastercard.com',
    },
    description:
      "The driver's settings (see the driver catalogue). A key the driver does not define, a required " +
      'one missing or a bad value → 400 under `settings.<key>`. On PATCH they merge: a key sent replaces, ' +
      'a key left out keeps its value (secrets included), `null` removes an optional key; a new `pg` ' +
      'starts from no settings. URLs are https (http also on a sandbox gateway).',
  })
  @Allow()
  settings?: Record<string, unknown> | null;

  @ChoiceField(GATEWAY_TYPES, { example: 'sandbox' })
  type: string;

  @ChoiceField(GATEWAY_OPERATIONS, { optional: true, notNull: true, description: 'Default `purchase`' })
  operation?: string;

  @CodeListField(CURRENCY_CODE, ADMIN_LIMITS.listItems, MSG.currencyCode, {
    transform: toUpper,
    example: ['KWD', 'USD'],
    description: 'Configured currency codes it accepts (any case; stored upper-case)',
  })
  currencies: string[];

  @DecimalTextField(FEE, {
    optional: true,
    example: '0.5',
    description: 'Non-negative decimal string (a JSON number is read as its decimal text); default "0".',
  })
  fee_fixed?: string;

  @DecimalTextField(
    { ...FEE, max: ADMIN_LIMITS.feePercentMax },
    {
      optional: true,
      example: '2.5',
      description: 'Percent of the amount, non-negative decimal string; default "0".',
    },
  )
  fee_percent?: string;

  @UrlOrEmptyField(ADMIN_LIMITS.iconUrl, { optional: true })
  icon?: string;

  @ChoiceField(GATEWAY_FLOWS, {
    optional: true,
    notNull: true,
    description: 'Default `redirect`; `offline` for (and only for) pg `cash`, which defaults to it',
  })
  flow?: string;

  @BoolField({ optional: true, notNull: true, description: 'Default false' })
  require_customer_phone?: boolean;

  @BoolField({ optional: true, notNull: true, description: 'Default true' })
  is_active?: boolean;

  @BoolField({
    optional: true,
    notNull: true,
    description:
      'Can save cards for later charges (contract §15). Default: true for a sandbox gateway, false otherwise',
  })
  tokenizable?: boolean;

  @TextField(LIMITS.gatewayInstructions, {
    optional: true,
    notNull: true,
    example: 'Pay at our Salmiya branch, Salem Al Mubarak St., 9:00–21:00.',
    description: 'Shown to the customer on the payment page (cash: where and how to pay). Default ""',
  })
  instructions?: string;
}

/** `PATCH gateways/{code}/`: only the sent fields change; `code` cannot change. */
export class UpdateGatewayDto extends PartialType(OmitType(CreateGatewayDto, ['code'] as const), {
  skipNullProperties: false,
}) {
  /** Not a field to change: sent only to be checked, a different code is refused (codes are immutable). */
  @ApiHideProperty()
  @Allow()
  code?: unknown;
}

/** `DELETE gateways/{code}/` answer. */
export class GatewayDeletionDto {
  @ApiProperty({ example: 'knet-main' }) code: string;
  @ApiProperty({
    enum: ['deleted', 'deactivated'],
    description: 'A gateway that transactions used is deactivated, not deleted',
  })
  result: 'deleted' | 'deactivated';
  @ApiProperty({ example: 'Gateway "knet-main" was deleted.' }) detail: string;
}
