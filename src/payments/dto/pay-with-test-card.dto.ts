import { TextField } from '../../common/validation/field-decorators';

export class PayWithTestCardDto {
  /** A test card number; spaces optional. */
  @TextField(32, { example: '4111 1111 1111 1111' })
  card: string;
}
