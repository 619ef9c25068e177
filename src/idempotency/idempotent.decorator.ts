import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiHeader, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { DetailDto } from '../common/errors/error-body.dto';
import { LIMITS } from '../common/validation/limits';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * The route honours `Idempotency-Key` (contract §11): applies the interceptor and documents the header
 * and its 409/422 answers. Put it ABOVE `@UseInterceptors(AttachmentUploadInterceptor)`:
 * decorators apply bottom-up, so the upload interceptor then runs first and the fingerprint sees
 * the file.
 */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotencyKey },
      description:
        'A key of your choice (≤ 255 characters, per credential, kept 24 h): a repeat with the same key ' +
        'and body returns the first successful response again with `Idempotent-Replayed: true`, ' +
        'without running the request twice.',
    }),
    ApiConflictResponse({
      type: DetailDto,
      description: 'A request with this Idempotency-Key is still being processed',
    }),
    ApiUnprocessableEntityResponse({
      type: DetailDto,
      description: 'The Idempotency-Key was already used with a different request body',
    }),
  );
