import { createCipheriv, createDecipheriv } from 'node:crypto';

/**
 * KNET's `trandata` encryption (the "RAW" merchant integration, no plug-in):
 *
 * - AES-128-CBC, key = the terminal resource key's 16 characters taken as bytes, IV = the same 16
 *   bytes, PKCS#5/#7 padding, ciphertext written as hex.
 * - Sources: KNET, *Merchant Integration Manual* K-064 v1.4 (23 Aug 2023) §3.5.4 ("Terminal
 *   Resource Key … 16 … for encrypting / decrypting the communication with Payment Gateway") and
 *   §5 (the encrypted `trandata` posted to the response URL); KNET's PHP RAW sample kit
 *   (`encryptAES`/`decrypt`: `openssl_encrypt(…, 'AES-128-CBC', $key, OPENSSL_ZERO_PADDING, $key)`
 *   after `pkcs5_pad`, then `bin2hex`), as published in public repositories such as
 *   srku14/KNET-Payment-Gateway-SDK and alnazer/woocommerce-payment-kent-v2.
 * - We write lower-case hex (as `bin2hex` does); we read either case (the manual's sample
 *   response is upper-case).
 *
 * The scheme has no MAC and reuses the key as IV. Whoever decrypts must therefore answer every
 * failure (bad hex, bad padding, unreadable content) the same way and never show what a
 * ciphertext decrypted to: see `KnetClient.openResult`.
 */

const KEY_BYTES = 16;
const BLOCK_BYTES = 16;
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})+$/;

/** A resource key that cannot be used; the message never contains the key. */
export class KnetKeyError extends Error {
  constructor() {
    super('The KNET resource key must be exactly 16 ASCII characters');
    this.name = 'KnetKeyError';
  }
}

/** `trandata` that is not hex, not whole blocks, or does not decrypt under the key. */
export class KnetDecryptError extends Error {
  constructor() {
    super('KNET trandata could not be decrypted');
    this.name = 'KnetDecryptError';
  }
}

/** The key bytes: 16 ASCII characters → 16 bytes. Anything else is refused. */
export function resourceKeyBytes(resourceKey: string): Buffer {
  if (resourceKey.length !== KEY_BYTES || !/^[\x20-\x7e]+$/.test(resourceKey)) throw new KnetKeyError();
  return Buffer.from(resourceKey, 'ascii');
}

/** Encrypts `plain` (UTF-8) under the resource key; lower-case hex. */
export function encryptTrandata(plain: string, resourceKey: string): string {
  const key = resourceKeyBytes(resourceKey);
  const cipher = createCipheriv('aes-128-cbc', key, key);
  return Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]).toString('hex');
}

/** Decrypts hex `trandata` (either case, surrounding blanks ignored) to UTF-8 text. */
export function decryptTrandata(hex: string, resourceKey: string): string {
  const key = resourceKeyBytes(resourceKey);
  const text = hex.trim();
  if (!HEX_PATTERN.test(text) || (text.length / 2) % BLOCK_BYTES !== 0) throw new KnetDecryptError();
  try {
    const decipher = createDecipheriv('aes-128-cbc', key, key);
    const plain = Buffer.concat([decipher.update(Buffer.from(text, 'hex')), decipher.final()]);
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    throw new KnetDecryptError();
  }
}
