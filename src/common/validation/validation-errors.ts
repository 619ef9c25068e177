import type { ValidationError } from 'class-validator';
import { addFieldError, FieldErrorTree } from '../errors/domain-errors';

/**
 * Constraints that describe the value's kind; when one fails, the others say nothing useful. Container
 * kinds come first: a list field whose items must be strings reports a dict as "not a list".
 */
const KIND_CONSTRAINTS = [
  'isDefined',
  'isArray',
  'isObject',
  'isString',
  'isBoolean',
  'isInt',
  'isNumber',
  'isDecimalText',
];

/** class-validator errors → contract §2's field tree (nested objects nest; every field at once). */
export function toFieldErrorTree(
  errors: ValidationError[],
  tree: FieldErrorTree = {},
  prefix = '',
): FieldErrorTree {
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    const kind = KIND_CONSTRAINTS.find((name) => constraints[name] !== undefined);
    const messages = kind ? [constraints[kind]] : Object.values(constraints);
    for (const message of messages) addFieldError(tree, path, message);
    if (error.children?.length && !kind) toFieldErrorTree(error.children, tree, path);
  }
  return tree;
}
