import { ApiProperty } from '@nestjs/swagger';
import { CardDto } from '../../cards/dto/card.dto';
import { GATEWAY_FLOWS, GATEWAY_OPERATIONS, GATEWAY_TYPES } from '../../gateways/gateway.entity';

/** A gateway the caller may open transactions on (contract §16). */
export class AvailablePaymentMethodDto {
  @ApiProperty({ example: 'sandbox', description: 'The pg code to send in `pg_codes`' }) code: string;
  @ApiProperty({ example: 'Sandbox card' }) name: string;
  @ApiProperty({ example: 'sandbox' }) pg: string;
  @ApiProperty({ enum: [...GATEWAY_TYPES] }) type: string;
  @ApiProperty() is_sandbox: boolean;
  @ApiProperty({ type: String, isArray: true, example: ['KWD', 'USD'] }) currencies: string[];
  @ApiProperty({ enum: [...GATEWAY_OPERATIONS] }) operation: string;
  @ApiProperty() tokenizable: boolean;
  @ApiProperty({ format: 'uri' }) icon: string;
  @ApiProperty({ enum: [...GATEWAY_FLOWS] }) flow: string;
  @ApiProperty({
    example: '2.5% + 0.25',
    description: 'The fee: a percent of the amount and/or a fixed part in the currency paid, or "No fee"',
  })
  fee_description: string;
}

export class PaymentMethodsDto {
  @ApiProperty({ type: AvailablePaymentMethodDto, isArray: true })
  payment_methods: AvailablePaymentMethodDto[];

  @ApiProperty({
    type: CardDto,
    isArray: true,
    description: "The customer's saved cards on these methods (empty without customer_id)",
  })
  customer_payment_methods: CardDto[];
}
