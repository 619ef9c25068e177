import { BoolField, TextField } from '../../common/validation/field-decorators';

export class PayWithTestCardDto {
  /** A test card number; spaces optional. */
  @TextField(32, { example: '4111 1111 1111 1111' })
  card: string;

  @TextField(7, { optional: true, example: '12/30', description: 'MM/YY; default five years ahead.' })
  expiry?: string;

  @TextField(4, { optional: true, example: '123', description: '3-4 digits; default 123.' })
  cvc?: string;

  @TextField(64, { optional: true, example: 'Jane Doe' })
  name_on_card?: string;

  @BoolField({
    optional: true,
    description: "Save the card for the transaction's customer (contract §15); needs customer_id.",
  })
  save_card?: boolean;
}
