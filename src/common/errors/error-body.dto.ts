import { ApiProperty } from '@nestjs/swagger';

/** `{"detail": "..."}`: every error that is not a field validation error (contract §2). */
export class DetailDto {
  @ApiProperty({ example: 'Not found.' })
  detail: string;
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
