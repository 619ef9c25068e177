import { ApiProperty } from '@nestjs/swagger';
import { BoolField, UrlField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { NameField, SecretField } from './admin-fields';
import { ADMIN_LIMITS } from './admin-limits';

/** `GET`/`PATCH config/` answer. The signing key itself is never shown. */
export class AdminConfigDto {
  @ApiProperty({ description: 'Payable transactions past their deadline are expired by the sweep job' })
  auto_expire: boolean;

  @ApiProperty({ type: String, nullable: true, format: 'uri', example: 'https://shop.example.com/thanks' })
  default_redirect_url: string | null;

  @ApiProperty({ example: 'Example Shop' })
  merchant_name: string;

  @ApiProperty({
    description: 'True when webhooks are signed: a key set here or through WEBHOOK_SIGNING_KEY',
  })
  webhook_signing_key_set: boolean;

  @ApiProperty({
    type: String,
    enum: ['admin', 'environment'],
    nullable: true,
    description: 'Where the key in effect comes from: set here, or WEBHOOK_SIGNING_KEY; null when none',
  })
  webhook_signing_key_source: 'admin' | 'environment' | null;
}

/** `PATCH config/`: only the sent fields change. */
export class UpdateAdminConfigDto {
  @BoolField({ optional: true, notNull: true })
  auto_expire?: boolean;

  @UrlField(LIMITS.url, {
    optional: true,
    nullable: true,
    description: 'Absolute http(s) URL; null clears it',
    example: 'https://shop.example.com/thanks',
  })
  default_redirect_url?: string | null;

  @NameField(LIMITS.merchantName, { optional: true, example: 'Example Shop' })
  merchant_name?: string;

  @SecretField(ADMIN_LIMITS.webhookSigningKeyMin, ADMIN_LIMITS.webhookSigningKey, {
    optional: true,
    nullable: true,
    description:
      'HMAC key for webhook signatures, 16 to 255 characters; write-only (never echoed). null clears it.',
  })
  webhook_signing_key?: string | null;
}
