import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { FieldErrorTree } from '../common/errors/domain-errors';
import { toFieldErrorTree } from '../common/validation/validation-errors';

/**
 * A console form checked by the admin API's own DTO (same rules, same messages): the value, or
 * the field error tree the API would answer with.
 */
export async function validateAs<T extends object>(
  type: new () => T,
  plain: Record<string, unknown>,
): Promise<{ value: T; errors: null } | { value: null; errors: FieldErrorTree }> {
  const value = plainToInstance(type, plain);
  const problems = await validate(value, { whitelist: true, forbidUnknownValues: false });
  return problems.length > 0 ? { value: null, errors: toFieldErrorTree(problems) } : { value, errors: null };
}

/** A form field's text ('' when missing or not text). */
export const formText = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};
