import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const SHORT_CODE_LENGTH = 8;
export const SHORT_CODE_PATTERN = /^[0-9A-Za-z]{7,16}$/;

/** A random base62 code from a CSPRNG, without modulo bias (bytes ≥ 248 are drawn again). */
export function randomShortCode(length = SHORT_CODE_LENGTH): string {
  let code = '';
  while (code.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && code.length < length) code += ALPHABET[byte % 62];
    }
  }
  return code;
}
