import { ApiProperty, PartialType } from '@nestjs/swagger';
import { BoolField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { MSG } from '../../common/validation/messages';
import { CodeListField, PatternField, SecretField } from './admin-fields';
import { ADMIN_LIMITS, GATEWAY_CODE, USERNAME } from './admin-limits';

/** A Basic-auth user: never its password or hash. */
export class UserDto {
  @ApiProperty({ example: 2 }) id: number;
  @ApiProperty({ example: 'shop-backoffice' }) username: string;
  @ApiProperty({ type: String, isArray: true, example: ['sandbox'] }) gateway_codes: string[];
  @ApiProperty() is_admin: boolean;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** `POST users/`. */
export class CreateUserDto {
  @PatternField(USERNAME, LIMITS.username, MSG.username, { example: 'shop-backoffice' })
  username: string;

  @SecretField(ADMIN_LIMITS.passwordMin, ADMIN_LIMITS.passwordMax, {
    description: 'Write-only: stored as a scrypt hash, never shown',
  })
  password: string;

  @CodeListField(GATEWAY_CODE, ADMIN_LIMITS.listItems, MSG.gatewayCode, {
    optional: true,
    example: ['sandbox'],
    description: 'Existing gateway codes this user may create transactions with; default []',
  })
  gateway_codes?: string[];

  @BoolField({ optional: true, notNull: true, description: 'Admin API access; default false' })
  is_admin?: boolean;

  @BoolField({
    optional: true,
    notNull: true,
    description: 'An inactive user cannot authenticate; default true',
  })
  is_active?: boolean;
}

/** `PATCH users/{id}/`: only the sent fields change (a new `password` replaces the old one). */
export class UpdateUserDto extends PartialType(CreateUserDto, { skipNullProperties: false }) {}
