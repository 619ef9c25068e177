import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { IsDecimalText } from '../../common/validation/custom-validators';
import { LIMITS } from '../../common/validation/limits';
import {
  apiProperty,
  ChoiceField,
  DateField,
  IntField,
  numberToText,
  TextField,
} from '../../common/validation/field-decorators';
import {
  AGREEMENT_TYPES,
  AMOUNT_VARIABILITIES,
  type AgreementType,
  type AmountVariability,
} from '../transaction-state';

/**
 * The merchant's agreement with the customer under which a saved card is charged later (contract §15,
 * `payment_type: auto_debit`). Kept as sent and echoed; the dates are calendar dates.
 */
export class AgreementDto {
  @TextField(LIMITS.agreementId, { example: 'subscription-42', description: "The merchant's agreement id." })
  id: string;

  @ChoiceField(AGREEMENT_TYPES, { optional: true, description: 'Default `unscheduled`.' })
  type?: AgreementType;

  @TextField(LIMITS.agreementFrequency, {
    optional: true,
    example: 'monthly',
    description: 'Free text, e.g. daily, weekly, monthly, yearly, irregular.',
  })
  frequency?: string;

  @ChoiceField(AMOUNT_VARIABILITIES, { optional: true })
  amount_variability?: AmountVariability;

  @apiProperty(
    {
      optional: true,
      example: '25.000',
      description: "Decimal; no more decimals than the currency's digits.",
    },
    { type: String, pattern: '^\\d{1,13}(\\.\\d+)?$' },
  )
  @IsOptional()
  @Transform(numberToText)
  @IsDecimalText()
  max_amount_per_cycle?: string;

  @IntField(1, LIMITS.agreementCycleIntervalDays, { optional: true })
  cycle_interval_days?: number;

  @IntField(1, LIMITS.agreementTotalCycles, { optional: true })
  total_cycles?: number;

  @DateField({ optional: true, example: '2030-01-01' })
  start_date?: string;

  @DateField({ optional: true, example: '2031-01-01', description: 'On or after start_date.' })
  expiry_date?: string;
}
