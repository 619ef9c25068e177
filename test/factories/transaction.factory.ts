/** A valid create body with overrides (the minimum the contract requires). */
export function transactionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'e_commerce', amount: '86.000', currency_code: 'KWD', pg_codes: ['sandbox'], ...overrides };
}
