import { ApiProperty } from '@nestjs/swagger';

/** `{"detail": "..."}`: every error that is not a field validation error (contract §2). */
export class DetailDto {
  @ApiProperty({ example: 'Not found.' })
  detail: string;
}

/** A payment provider's own error, reported in a field (contract §20.1: its status never becomes ours). */
export class ProviderErrorDto {
  @ApiProperty({ example: 'stripe', description: "The gateway's driver (`pg`)" }) provider: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 429,
    description: "The provider's HTTP status; null when it did not answer",
  })
  status: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'rate_limit',
    description: "The provider's error code",
  })
  code: string | null;
  @ApiProperty({ example: 'Too many requests.', description: "The provider's message" }) message: string;
}

/**
 * A provider call that failed: 503 (with `Retry-After`) when the provider did not answer or is busy,
 * 502 when it refused the request.
 */
export class ProviderFailureDto {
  @ApiProperty({ example: 'The payment provider (stripe) refused the request.' }) detail: string;
  @ApiProperty({ type: ProviderErrorDto }) provider_error: ProviderErrorDto;
}

/**
 * A 400 (contract §2): field → list of messages (nested objects nest), or `{"detail"}` when the
 * request could not be read at all (malformed JSON, bad encoding, an unreadable form).
 */
export const FIELD_ERRORS_SCHEMA = {
  description:
    'Field → list of messages; nested objects nest. Every violation of the request at once. ' +
    'A request that cannot be read at all (malformed JSON, bad encoding) gets `{"detail": "..."}` instead.',
  anyOf: [
    {
      type: 'object' as const,
      title: 'FieldErrors',
      additionalProperties: {
        oneOf: [
          { type: 'array' as const, items: { type: 'string' as const } },
          { type: 'object' as const, additionalProperties: true },
        ],
      },
    },
    {
      type: 'object' as const,
      title: 'Detail',
      required: ['detail'],
      properties: { detail: { type: 'string' as const } },
      additionalProperties: false,
    },
  ],
  example: {
    amount: ['Ensure this value is greater than 0.'],
    billing_address: { country: ['"XX" is not a valid ISO 3166-1 alpha-2 country code.'] },
  },
};
