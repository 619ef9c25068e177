import { randomBytes } from 'node:crypto';

/** A random admin password (16 URL-safe characters), printed once by whoever creates the admin. */
export function generatedPassword(): string {
  return randomBytes(12).toString('base64url');
}
