import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ProviderErrorDto } from '../../common/errors/error-body.dto';
import { OPERATIONS } from '../operations.service';

/** The body of `POST /b/pbl/v2/operation/` (contract §10): `session_id` or `order_no` names the transaction. */
export class OperationRequestDto {
  @ApiProperty({ enum: [...OPERATIONS], example: 'refund' })
  operation: string;

  @ApiPropertyOptional({ pattern: '^[0-9a-f]{40}$', description: 'The transaction; or send order_no' })
  session_id?: string;

  @ApiPropertyOptional({
    maxLength: 128,
    description: 'The live (else most recent) transaction with this order_no',
  })
  order_no?: string;

  @ApiPropertyOptional({
    type: String,
    example: '10.000',
    pattern: '^\\d{1,13}(\\.\\d+)?$',
    description:
      'capture and refund only; omitted = the rest (the authorized amount for capture, what is left to refund for refund)',
  })
  amount?: string;
}

export class OperationResponseDto {
  @ApiProperty({ example: 'The amount has been refunded.' }) detail: string;
  @ApiProperty({ enum: [...OPERATIONS] }) operation: string;
  @ApiProperty({ enum: ['success'] }) result: string;
  @ApiProperty({ pattern: '^[0-9a-f]{40}$' }) session_id: string;
  @ApiProperty({ type: String, nullable: true }) order_no: string | null;
  @ApiProperty({ example: '10.000', description: "The operation's amount" }) amount: string;
  @ApiProperty({ example: 'paid' }) state: string;
}

export class OperationFailedDto {
  @ApiProperty({ example: 'Cannot capture a transaction in state "paid".' }) detail: string;
  @ApiProperty({ type: String, nullable: true, example: 'capture' }) operation: string | null;
  @ApiProperty({ enum: ['failed'] }) result: string;
  @ApiPropertyOptional({
    type: String,
    isArray: true,
    example: ['Stripe charges KWD in multiples of 0.010: the last of the three decimals must be 0.'],
    description: "An amount the gateway's provider cannot move: the rule it breaks (contract §20.1)",
  })
  amount?: string[];
  @ApiPropertyOptional({
    type: ProviderErrorDto,
    description: "The provider's own error, when the provider refused the operation (502)",
  })
  provider_error?: ProviderErrorDto;
}
