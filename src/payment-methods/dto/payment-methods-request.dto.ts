import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches } from 'class-validator';
import { BoolField, ChoiceField, TextField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { MSG } from '../../common/validation/messages';
import { PG_NAME } from '../../admin/dto/admin-limits';
import { GATEWAY_OPERATIONS, GATEWAY_TYPES } from '../../gateways/gateway.entity';
import { TRANSACTION_TYPES } from '../../transactions/transaction-state';

const MAX_ITEMS = 50;

/** An optional list of strings, each matching `pattern` (null = not sent). */
const StringListField = (pattern: RegExp, message: string, description: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      isArray: true,
      maxItems: MAX_ITEMS,
      description,
      items: { type: 'string', pattern: pattern.source },
    }),
    IsOptional(),
    IsArray({ message: MSG.list }),
    ArrayMaxSize(MAX_ITEMS, { message: MSG.maxItems(MAX_ITEMS) }),
    IsString({ each: true, message: MSG.string }),
    Matches(pattern, { each: true, message }),
  );

/** Currency codes in any case: each string upper-cased, anything else left for the validators. */
function upperCased(value: unknown): unknown {
  return Array.isArray(value)
    ? value.map((item: unknown) => (typeof item === 'string' ? item.toUpperCase() : item))
    : value;
}

/** `POST /b/pbl/v2/payment-methods/` (contract §16): every filter sent must match. */
export class PaymentMethodsRequestDto {
  @ChoiceField(TRANSACTION_TYPES, {
    optional: true,
    description: 'The transaction type the methods are for (every gateway serves both)',
  })
  plugin?: string | null;

  @Transform(({ value }: { value: unknown }) => upperCased(value))
  @StringListField(
    /^[A-Z]{3}$/,
    MSG.currencyCode,
    'Only gateways accepting every one of these currencies (any case)',
  )
  currencies?: string[] | null;

  @TextField(LIMITS.customerId, {
    optional: true,
    description: "With it, the answer also lists this customer's saved cards on the methods found",
  })
  customer_id?: string | null;

  @ChoiceField(GATEWAY_OPERATIONS, { optional: true })
  operation?: string | null;

  @BoolField({ optional: true, description: 'Only gateways that can (true) or cannot (false) save cards' })
  tokenizable?: boolean | null;

  @StringListField(PG_NAME, MSG.pgName, 'Only gateways of these `pg` (e.g. sandbox, cash)')
  pg_names?: string[] | null;

  @ChoiceField(GATEWAY_TYPES, { optional: true })
  type?: string | null;
}
