import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { TextField } from '../../common/validation/field-decorators';

/** `POST /b/pbl/v2/auto-debit/`: charge a payable transaction with a saved card (contract §15). */
export class AutoDebitDto {
  @ApiProperty({ pattern: '^[0-9a-f]{40}$' })
  @TextField(40)
  @Matches(/^[0-9a-f]{40}$/, { message: 'Enter a valid session_id: 40 lowercase hexadecimal characters.' })
  session_id: string;

  @TextField(64, { description: "A saved card of the transaction's customer on its gateway" })
  token: string;
}
