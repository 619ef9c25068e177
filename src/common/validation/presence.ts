import { IsDefined, IsOptional, ValidateIf } from 'class-validator';
import { MSG, requiredMessage } from './messages';

/** Whether a field must be sent, and whether `null` is a value (DRF's `required` / `allow_null`). */
export interface Presence {
  /** May be left out. */
  optional?: boolean;
  /** `null` is accepted (it clears the value). Otherwise `null` → "This field may not be null.". */
  nullable?: boolean;
}

/** The presence half of a composite field decorator: what to check before the value's own rules. */
export function presence({ optional, nullable }: Presence): PropertyDecorator[] {
  if (optional && nullable) return [IsOptional()]; // left out or null: nothing to check
  if (optional)
    return [ValidateIf((_: object, v: unknown) => v !== undefined), IsDefined({ message: requiredMessage })];
  if (nullable)
    return [IsDefined({ message: MSG.required }), ValidateIf((_: object, v: unknown) => v !== null)];
  return [IsDefined({ message: requiredMessage })];
}
