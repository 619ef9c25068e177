import { ApiProperty } from '@nestjs/swagger';
import { LIMITS } from '../../common/validation/limits';
import { DateTimeField, NameField } from './admin-fields';

/** An API key as listed: never its secret. */
export class ApiKeyDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'shop backend' }) name: string;
  @ApiProperty({ example: 'k3j9x0qa', description: 'The public first 8 characters of the key' })
  prefix: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Set once revoked' })
  revoked_at: string | null;
}

/** `POST api-keys/` answer: the only time the full key is shown. */
export class IssuedApiKeyDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'shop backend' }) name: string;
  @ApiProperty({ example: 'k3j9x0qa' }) prefix: string;
  @ApiProperty({
    example: 'k3j9x0qa.9mJ3x0Vq1rZ2bN8cT4yW6eL0aD5fG7hK2pS9uX1vB3n',
    description: 'Send as `Authorization: Api-Key <key>`. Shown only in this answer: it is stored hashed.',
  })
  key: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
}

/** `POST api-keys/`. */
export class CreateApiKeyDto {
  @NameField(LIMITS.apiKeyName, { example: 'shop backend' })
  name: string;

  @DateTimeField({
    optional: true,
    nullable: true,
    description:
      'When the key stops working (ISO 8601 with a time zone, in the future); null or left out: never',
  })
  expires_at?: string | null;
}
