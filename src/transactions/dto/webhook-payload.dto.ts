import { RouteDecisionDto } from './transaction.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CardDto } from '../../cards/dto/card.dto';
import { EVENT_NAMES } from '../../events/event-types';
import { TRANSACTION_STATES } from '../transaction-state';

export class AmountDetailsDto {
  @ApiProperty({ example: '86.000' }) amount: string;
  @ApiProperty({ example: 'KWD' }) currency_code: string;
  @ApiProperty({ example: '0.000' }) fee: string;
  @ApiProperty({ example: '86.000', description: '`amount + fee`' }) total: string;
}

export class InitiatorDto {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'merchant' }) username: string;
}

/**
 * The webhook body (contract §6 and §16), also the answer of auto-debit, inquiry and the cash
 * acknowledgement. `signature` covers the §6 key list only.
 */
export class WebhookPayloadDto {
  @ApiProperty({ enum: EVENT_NAMES }) event: string;
  @ApiProperty({ format: 'uuid', description: 'The same on every retry and redelivery' }) event_id: string;
  @ApiProperty({ description: 'Rises by one with every event of the transaction' }) sequence: number;
  @ApiProperty() session_id: string;
  @ApiProperty({ type: String, nullable: true }) order_no: string | null;
  @ApiProperty({ enum: TRANSACTION_STATES }) state: string;
  @ApiProperty({ enum: ['one_off', 'save_card', 'auto_debit'] }) payment_type: string;
  @ApiProperty({ example: '86.000' }) amount: string;
  @ApiProperty({ example: 'KWD' }) currency_code: string;
  @ApiProperty({ example: '0.000' }) fee: string;
  @ApiProperty({ type: AmountDetailsDto }) amount_details: AmountDetailsDto;
  @ApiProperty({ description: 'The gateway code', example: 'sandbox' }) gateway_account: string;
  @ApiProperty({
    description:
      "The gateway the payment was taken on (a routing gateway's member, contract §21); empty until a payment succeeds",
  })
  gateway_code: string;
  @ApiProperty({
    type: RouteDecisionDto,
    isArray: true,
    description: "A routing gateway's decisions for the transaction, oldest first; [] otherwise",
  })
  routing: RouteDecisionDto[];
  @ApiProperty() gateway_name: string;
  @ApiProperty() is_sandbox: boolean;
  @ApiProperty({ description: 'The payment attempt, `""` for other events' }) reference_number: string;
  @ApiProperty({ enum: ['', 'success', 'failed', 'error'] }) result: string;
  @ApiProperty({ example: '86.000' }) paid_amount: string;
  @ApiProperty({ example: '0.000' }) captured_amount: string;
  @ApiProperty({ example: '0.000' }) refunded_amount: string;
  @ApiProperty({ example: '86.000', description: 'Paid (purchase) or captured (authorization)' })
  settled_amount: string;
  @ApiProperty({ example: '0.000', description: '`amount − settled_amount`, never below zero' })
  remaining_amount: string;
  @ApiProperty({ example: '0.000' }) voided_amount: string;
  @ApiProperty({ example: 'Approved', description: 'The attempt\'s response, `""` for other events' })
  message: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The gateway's answer to the attempt (never card data); `{}` for other events",
  })
  gateway_response: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Gateway-specific parameters' })
  pg_params: Record<string, unknown>;
  @ApiProperty({ type: CardDto, nullable: true, description: 'The card the payment saved or charged' })
  token: CardDto | null;
  @ApiPropertyOptional({ type: InitiatorDto, description: 'The Basic user who created the transaction' })
  initiator?: InitiatorDto;
  @ApiProperty() customer_id: string;
  @ApiProperty() customer_first_name: string;
  @ApiProperty() customer_last_name: string;
  @ApiProperty() customer_email: string;
  @ApiProperty() customer_phone: string;
  @ApiProperty() customer_address_line1: string;
  @ApiProperty() customer_address_line2: string;
  @ApiProperty() customer_address_city: string;
  @ApiProperty() customer_address_state: string;
  @ApiProperty() customer_address_country: string;
  @ApiProperty() customer_address_postal_code: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) extra: Record<string, unknown>;
  @ApiPropertyOptional({ enum: ['capture', 'void', 'refund', 'cancel', 'expire', 'delete'] })
  operation?: string;
  @ApiPropertyOptional({ example: '86.000' }) operation_amount?: string;
  @ApiProperty({ example: '2026-11-21 06:30:00', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' })
  timestamp_utc: string;
  @ApiProperty({ description: 'HMAC-SHA256 (lowercase hex) of the §6 keys; `""` when unsigned' })
  signature: string;
}
