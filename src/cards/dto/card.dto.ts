import { ApiProperty } from '@nestjs/swagger';

/** A saved card (contract §15). Only the last four digits of the number are kept. */
export class CardDto {
  @ApiProperty({ description: 'Random, at least 32 characters; charge it with auto-debit', minLength: 32 })
  token: string;
  @ApiProperty() customer_id: string;
  @ApiProperty({ example: 'sandbox' }) pg_code: string;
  @ApiProperty({ example: 'Visa' }) brand: string;
  @ApiProperty({ example: 'Jane Doe' }) name_on_card: string;
  @ApiProperty({ example: '**** 1111', pattern: '^\\*{4} \\d{4}$' }) number: string;
  @ApiProperty({ example: '12', pattern: '^(0[1-9]|1[0-2])$' }) expiry_month: string;
  @ApiProperty({ example: '2030', pattern: '^\\d{4}$' }) expiry_year: string;
  @ApiProperty() is_expired: boolean;
  @ApiProperty({ description: 'The customer types the CVC to pay with it on the payment page' })
  cvv_required: boolean;
  @ApiProperty() is_preferred: boolean;
  @ApiProperty({ type: String, isArray: true, description: 'Ids of the agreements it was saved under' })
  agreements: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
