import { ApiProperty } from '@nestjs/swagger';
import { MSG } from '../../common/validation/messages';
import { IntField, PatternField } from './admin-fields';
import { ADMIN_LIMITS, CURRENCY_CODE } from './admin-limits';

const toUpper = (value: string): string => value.toUpperCase();

/** A configured currency. */
export class CurrencyDto {
  @ApiProperty({ example: 'KWD', pattern: '^[A-Z]{3}$' })
  code: string;

  @ApiProperty({ example: 3, description: 'Decimals of its amounts' })
  digits: number;
}

/** `POST currencies/`. */
export class CreateCurrencyDto {
  @PatternField(CURRENCY_CODE, 3, MSG.currencyCode, {
    transform: toUpper,
    example: 'KWD',
    description: 'ISO 4217 letters, any case (stored upper-case); unique',
  })
  code: string;

  @IntField(0, ADMIN_LIMITS.currencyDigitsMax, {
    optional: true,
    example: 3,
    description:
      'Decimals of its amounts; defaults to the ISO 4217 minor unit (required for a code ISO does not know)',
  })
  digits?: number;
}
