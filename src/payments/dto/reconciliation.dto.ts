import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches } from 'class-validator';
import { IntField } from '../../common/validation/field-decorators';
import { MSG } from '../../common/validation/messages';
import { ATTEMPT_RESULTS, type AttemptResult } from '../payment-attempt.entity';
import { TRANSACTION_STATES, type TransactionState } from '../../transactions/transaction-state';

export const RECONCILIATION_DEFAULT_LIMIT = 200;
export const RECONCILIATION_MAX_LIMIT = 1000;
/** The default period: the last 24 hours. */
export const RECONCILIATION_DEFAULT_HOURS = 24;

/** An instant with its offset (`2026-11-28T10:00:00Z`), optional. */
const InstantField = (description: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    IsOptional(),
    IsString({ message: MSG.dateTime }),
    IsISO8601({ strict: true, strictSeparator: true }, { message: MSG.dateTime }),
    Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: MSG.dateTime }),
  );

/** `GET /b/checkout/v1/admin/reconciliation/` (contract §20.1). */
export class ReconciliationQueryDto {
  @InstantField(
    `Attempts started at or after this instant (default: ${RECONCILIATION_DEFAULT_HOURS} hours ago)`,
  )
  since?: string;

  @InstantField('Attempts started strictly before this instant (default: now)')
  until?: string;

  @IntField(1, RECONCILIATION_MAX_LIMIT, {
    optional: true,
    notNull: true,
    description: `How many attempts to list, newest first (default ${RECONCILIATION_DEFAULT_LIMIT}); the counts cover the whole period`,
  })
  limit?: number;
}

export const RECONCILIATION_STATUSES = ['matched', 'pending', 'mismatch'] as const;
export type ReconciliationStatus = (typeof RECONCILIATION_STATUSES)[number];

export class ReconciliationCountsDto {
  @ApiProperty({ description: "The provider's final word equals the transaction's record" })
  matched: number;

  @ApiProperty({ description: 'Still being asked: the provider has not given its final word' })
  pending: number;

  @ApiProperty({
    description:
      'The provider took money the transaction does not show, or the reverse: a person must look (logged as an error with the reference)',
  })
  mismatch: number;
}

export class ReconciliationGatewayDto extends ReconciliationCountsDto {
  @ApiProperty({ description: 'The gateway code' })
  gateway: string;

  @ApiProperty({ description: "The gateway's driver (`pg`); empty when the gateway is gone" })
  pg: string;
}

export class ReconciliationAttemptDto {
  @ApiProperty({ description: "The attempt's reference number (the provider's order / track id)" })
  reference_number: string;

  @ApiProperty({ description: 'The transaction' })
  session_id: string;

  @ApiProperty({ description: 'The gateway code the attempt ran on' })
  gateway: string;

  @ApiProperty({ enum: RECONCILIATION_STATUSES })
  status: ReconciliationStatus;

  @ApiProperty({ enum: ATTEMPT_RESULTS, description: "The provider's answer as the attempt stores it" })
  result: AttemptResult;

  @ApiProperty({ description: "The provider's response code" })
  response_code: string;

  @ApiProperty({ enum: TRANSACTION_STATES, description: "The transaction's state now" })
  state: TransactionState;

  @ApiProperty({ example: '86.000' })
  amount: string;

  @ApiProperty({ example: 'KWD' })
  currency_code: string;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the customer left its provider session (still watched until settled)',
  })
  left_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  settled_at: string | null;
}

/** The reconciliation report (contract §20.1). */
export class ReconciliationDto {
  @ApiProperty({ type: String, format: 'date-time' })
  since: string;

  @ApiProperty({ type: String, format: 'date-time' })
  until: string;

  @ApiProperty({ type: ReconciliationCountsDto })
  totals: ReconciliationCountsDto;

  @ApiProperty({ type: ReconciliationGatewayDto, isArray: true })
  gateways: ReconciliationGatewayDto[];

  @ApiProperty({
    type: ReconciliationAttemptDto,
    isArray: true,
    description: 'Newest first, at most `limit`',
  })
  attempts: ReconciliationAttemptDto[];
}
