import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString } from 'class-validator';
import { ChoiceField, TextField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { MSG } from '../../common/validation/messages';
import { GATEWAY_TYPES, type GatewayType } from '../../gateways/gateway.entity';

/** `POST /b/pbl/v2/card/`: a customer's saved cards (contract §15). */
export class ListCardsDto {
  @TextField(LIMITS.customerId, { example: 'customer-7' })
  customer_id: string;

  @ChoiceField(GATEWAY_TYPES, { description: 'Cards of sandbox or of production gateways' })
  type: GatewayType;

  @ApiPropertyOptional({ type: String, isArray: true, maxItems: 50, description: 'Only these gateway codes' })
  @IsOptional()
  @IsArray({ message: MSG.list })
  @ArrayMaxSize(50, { message: MSG.maxItems(50) })
  @IsString({ each: true, message: MSG.string })
  pg_codes?: string[];

  @TextField(LIMITS.agreementId, {
    optional: true,
    example: 'subscription-42',
    description:
      'Only the card last used for this agreement (saved under it, or charged for a transaction ' +
      'carrying it): an array of at most one card, `[]` when there is none',
  })
  agreement_id?: string | null;
}

/** The query of `DELETE /b/pbl/v2/card/{token}/`. */
export class DeleteCardQueryDto {
  @TextField(LIMITS.customerId)
  customer_id: string;

  @ChoiceField(GATEWAY_TYPES)
  type: GatewayType;
}
