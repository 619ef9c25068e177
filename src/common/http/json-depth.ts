/**
 * contract §17: a body nested deeper than this is refused (400). The body itself is level 1, so a
 * top-level object's `extra` may hold 31 more. Far above any real payload, far below the depth at
 * which a recursive step (class-transformer, the JSON walk) would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 32;

export const TOO_DEEP_MESSAGE = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Whether `value` has objects or arrays nested more than `limit` levels deep (`{}` is 1 level).
 * For values decoded outside the JSON body parser (form fields sent as JSON strings, multipart
 * field names like `a[b][c]`): that parser counts depth in its own walk instead.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  const items: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return items.some((item) => nestedDeeperThan(item, limit - 1));
}

/**
 * Whether `value` holds more than `limit` values (object members and list items, at any depth), as
 * the JSON body parser counts them (json-parse.ts `MAX_JSON_VALUES`). For values decoded outside it:
 * a dict sent as a JSON string in a form field. Stops counting past the limit.
 */
export function holdsMoreValuesThan(value: unknown, limit: number): boolean {
  let left = limit;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    const items: unknown[] = Array.isArray(next) ? next : Object.values(next);
    left -= items.length;
    if (left < 0) return true;
    for (const item of items) if (typeof item === 'object' && item !== null) pending.push(item);
  }
  return false;
}
