import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  IsCountryCode,
  IsDecimalText,
  IsDurationText,
  IsLanguageCode,
  IsSmallJsonObject,
} from '../../common/validation/custom-validators';
import {
  BoolField,
  ChoiceField,
  EmailField,
  EmailListField,
  numberToText,
  TextField,
  UrlField,
} from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { MSG, requiredMessage } from '../../common/validation/messages';
import {
  NOTIFICATION_EVENTS,
  NotificationEvent,
  PAYMENT_TYPES,
  type PaymentType,
  TRANSACTION_TYPES,
  TransactionType,
} from '../transaction-state';
import { AgreementDto } from './agreement.dto';

const upper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value);
/** order_no is an identifier compared for uniqueness: surrounding spaces never count (as DRF trims). */
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const lower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value);
/** Notification channel keys in any case (`SMS` too), then the nested DTO to validate. */
const toNotifications = ({ value }: { value: unknown }) =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? plainToInstance(
        NotificationsDto,
        Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v as unknown])),
      )
    : value;

export class BillingAddressDto {
  @TextField(LIMITS.addressLine, { example: 'Block 1, Street 2, House 3' })
  line1: string;

  @TextField(LIMITS.addressLine, { optional: true })
  line2?: string;

  @TextField(LIMITS.addressCity, { example: 'Kuwait City' })
  city: string;

  @TextField(LIMITS.addressState, { example: 'Capital' })
  state: string;

  @ApiProperty({
    description: 'ISO 3166-1 alpha-2 country code',
    example: 'KW',
    minLength: 2,
    maxLength: 2,
    pattern: '^[A-Za-z]{2}$',
  })
  @IsDefined({ message: requiredMessage })
  @Transform(upper)
  @IsCountryCode()
  country: string;

  @TextField(LIMITS.postalCode, { example: '13001' })
  postal_code: string;
}

const eventList = (): PropertyDecorator => (target: object, key: string | symbol) => {
  ApiPropertyOptional({ enum: [...NOTIFICATION_EVENTS], isArray: true })(target, key);
  IsOptional()(target, key);
  IsArray({ message: MSG.list })(target, key);
  IsIn([...NOTIFICATION_EVENTS], { each: true, message: MSG.choice })(target, key);
};

export class NotificationsDto {
  @eventList()
  email?: NotificationEvent[];

  @eventList()
  sms?: NotificationEvent[];
}

/** The request body of create (and, all optional, of update). Limits: contract §4. */
export class CreateTransactionDto {
  @ChoiceField(TRANSACTION_TYPES, { example: 'e_commerce' })
  type: TransactionType;

  @ApiProperty({
    type: String,
    description:
      'Decimal amount; a JSON number is read as its decimal text. No more significant decimals than the currency has.',
    pattern: '^\\d{1,13}(\\.\\d+)?$',
    example: '86.000',
  })
  @IsDefined({ message: requiredMessage })
  @Transform(numberToText)
  @IsDecimalText()
  amount: string;

  @ApiProperty({
    description: 'ISO 4217 code of a configured currency (case-insensitive)',
    example: 'KWD',
    minLength: 3,
    maxLength: 3,
    pattern: '^[A-Za-z]{3}$',
  })
  @IsDefined({ message: requiredMessage })
  @Transform(upper)
  @IsString({ message: MSG.string })
  @Matches(/^[A-Z]{3}$/, { message: 'Enter a valid 3-letter ISO 4217 currency code.' })
  currency_code: string;

  @ApiProperty({
    type: String,
    isArray: true,
    minItems: 1,
    maxItems: 1,
    description: 'Exactly one gateway code',
    example: ['sandbox'],
  })
  @IsDefined({ message: requiredMessage })
  @IsArray({ message: MSG.list })
  @ArrayMinSize(1, { message: 'Exactly one gateway code must be provided.' })
  @ArrayMaxSize(1, { message: 'Exactly one gateway code must be provided.' })
  @IsString({ each: true, message: MSG.string })
  pg_codes: string[];

  @BoolField({
    optional: true,
    description: 'Create a short link to the attachment (fills attachment_short_url).',
  })
  shortify_attachment_url?: boolean;

  @BoolField({ optional: true, description: 'Create a short checkout link (fills checkout_short_url).' })
  shortify_checkout_url?: boolean;

  @TextField(LIMITS.mode, { optional: true, example: 'payment' })
  mode?: string;

  @UrlField(LIMITS.url, {
    optional: true,
    description: 'Receives the payment events (contract §6). Private addresses are refused.',
  })
  webhook_url?: string;

  @UrlField(LIMITS.url, { optional: true, description: 'Where the customer goes after paying.' })
  redirect_url?: string;

  @TextField(LIMITS.customerId, { optional: true })
  customer_id?: string;

  @TextField(LIMITS.customerName, { optional: true })
  customer_first_name?: string;

  @TextField(LIMITS.customerName, { optional: true })
  customer_last_name?: string;

  @EmailField(LIMITS.customerEmail, { optional: true })
  customer_email?: string;

  @ApiPropertyOptional({ maxLength: LIMITS.customerPhone, pattern: '^\\+?\\d+$', example: '+96550000000' })
  @IsOptional()
  @IsString({ message: MSG.string })
  @MaxLength(LIMITS.customerPhone, { message: MSG.maxLength(LIMITS.customerPhone) })
  @Matches(/^\+?\d+$/, { message: 'Enter a valid phone number: digits with an optional leading "+".' })
  customer_phone?: string;

  @ApiPropertyOptional({ type: BillingAddressDto, nullable: true })
  @IsOptional()
  @IsObject({ message: MSG.dict })
  @ValidateNested()
  @Type(() => BillingAddressDto)
  billing_address?: BillingAddressDto | null;

  @Transform(trim)
  @TextField(LIMITS.orderNo, {
    optional: true,
    nullable: true,
    description: 'Unique among live (not canceled or expired) transactions; surrounding spaces are trimmed.',
  })
  order_no?: string | null;

  @ApiPropertyOptional({
    type: NotificationsDto,
    description: 'Events to notify the customer of, per channel. Keys are case-insensitive.',
  })
  @IsOptional()
  @Transform(toNotifications)
  @IsObject({ message: MSG.dict })
  @ValidateNested()
  notifications?: NotificationsDto;

  @TextField(LIMITS.vendorName, { optional: true })
  vendor_name?: string;

  @ApiPropertyOptional({
    description: 'Payment window: HH:MM:SS or D HH:MM:SS, above zero and at most 30 days.',
    pattern: '^(\\d{1,3} )?\\d{1,3}:[0-5]\\d:[0-5]\\d$',
    default: '01:00:00',
    example: '00:30:00',
  })
  @IsOptional()
  @IsDurationText()
  expiration_time?: string;

  @EmailListField(LIMITS.emailRecipients, LIMITS.customerEmail, { optional: true })
  email_recipients?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Free key-value data, at most 8 KB as JSON.',
  })
  @IsOptional()
  @IsSmallJsonObject(LIMITS.extraJsonBytes)
  extra?: Record<string, unknown>;

  @TextField(LIMITS.productType, { optional: true })
  product_type?: string;

  @ApiPropertyOptional({
    description: 'ISO 639-1 code',
    minLength: 2,
    maxLength: 2,
    pattern: '^[a-z]{2}$',
    default: 'en',
  })
  @IsOptional()
  @Transform(lower)
  @IsLanguageCode()
  language?: string;

  @BoolField({
    optional: true,
    description:
      'Write-only: generate a PNG QR code of checkout_url (qr_code_url); sent again, a new address.',
  })
  generate_qr_code?: boolean;

  @ChoiceField(PAYMENT_TYPES, {
    optional: true,
    description:
      'one_off (default); save_card: the card is saved on success; auto_debit: saved, and the merchant may charge it later (needs agreement). Both need customer_id and a tokenizable gateway.',
  })
  payment_type?: PaymentType;

  @ApiPropertyOptional({
    type: AgreementDto,
    nullable: true,
    description: 'Required with payment_type auto_debit.',
  })
  @IsOptional()
  @IsObject({ message: MSG.dict })
  @ValidateNested()
  @Type(() => AgreementDto)
  agreement?: AgreementDto | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'binary',
    description: 'One file (multipart/form-data only): pdf jpeg png doc docx jpg xls xlsx.',
  })
  attachment?: unknown;
}
