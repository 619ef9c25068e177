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
