import { ApiProperty } from '@nestjs/swagger';

/** `{"detail": "..."}`: every error that is not a field validation error (SPEC §2). */
export class DetailDto {
  @ApiProperty({ example: 'Not found.' })
  detail: string;
}

/** Field → list of messages; nested objects nest (SPEC §2). */
export const FIELD_ERRORS_SCHEMA = {
  type: 'object' as const,
  description: 'Field → list of messages; nested objects nest. Every violation of the request at once.',
  additionalProperties: {
    oneOf: [
      { type: 'array' as const, items: { type: 'string' as const } },
      { type: 'object' as const, additionalProperties: true },
    ],
  },
  example: {
    amount: ['Ensure this value is greater than 0.'],
    billing_address: { country: ['"XX" is not a valid ISO 3166-1 alpha-2 country code.'] },
  },
};
