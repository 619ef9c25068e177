import { ApiProperty } from '@nestjs/swagger';

/** One setting a driver takes (contract §20 "Driver catalogue"). */
export class DriverSettingDto {
  @ApiProperty({ example: 'merchant_id' }) name: string;
  @ApiProperty() required: boolean;
  @ApiProperty({ description: 'Write-only: never shown; a gateway lists it in `secrets_set` once set' })
  secret: boolean;
  @ApiProperty({
    anyOf: [
      { type: 'string', nullable: true },
      { type: 'integer', nullable: true },
      { type: 'boolean', nullable: true },
    ],
    example: 8000,
    description: 'Taken when the gateway has no value; null: none, or one that `description` explains',
  })
  default: string | number | boolean | null;
  @ApiProperty({ example: 'The merchant id the bank issued.' }) description: string;
}

/** A driver a gateway's `pg` can name (contract §20 "Driver catalogue"). */
export class GatewayDriverDto {
  @ApiProperty({ example: 'mpgs' }) pg: string;
  @ApiProperty({ example: 'Mastercard Gateway (MPGS)' }) name: string;
  @ApiProperty({ enum: ['card_form', 'redirect', 'offline'] }) flow: string;
  @ApiProperty({ type: DriverSettingDto, isArray: true }) settings: DriverSettingDto[];
  @ApiProperty({
    enum: ['capture', 'void', 'refund', 'partial_capture', 'partial_refund'],
    isArray: true,
    description: 'The operations it supports',
  })
  operations: string[];
  @ApiProperty({ description: 'Can save cards (contract §15)' }) tokenizable: boolean;
  @ApiProperty({
    type: String,
    isArray: true,
    nullable: true,
    example: ['KWD'],
    description: 'The only currencies it takes; null: any currency',
  })
  currencies: string[] | null;
}
