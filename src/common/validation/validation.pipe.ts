import { ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { FieldErrors } from '../errors/domain-errors';
import { toFieldErrorTree } from './validation-errors';

/** The global pipe: strips unknown fields and reports every violation at once as contract §2's tree. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    validateCustomDecorators: false,
    exceptionFactory: (errors: ValidationError[]) => new FieldErrors(toFieldErrorTree(errors)),
  });
}
