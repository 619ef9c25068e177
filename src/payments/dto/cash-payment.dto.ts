import { Matches } from 'class-validator';
import { TextField } from '../../common/validation/field-decorators';

/** `POST /b/pbl/v2/payment/cash/`: the merchant received the cash of a transaction (contract §16). */
export class CashPaymentDto {
  @TextField(40, { description: 'A payable transaction on a cash gateway' })
  @Matches(/^[0-9a-f]{40}$/, { message: 'Enter a valid session_id: 40 lowercase hexadecimal characters.' })
  session_id: string;
}
