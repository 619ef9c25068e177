import type { DataSource } from 'typeorm';
import { reencryptSecrets } from './gateway-settings';
import { Gateway } from './gateway.entity';
import { SecretsCipher, storedKeyId } from './secrets-cipher';

export interface RotationResult {
  /** Gateways whose secrets were encrypted again. */
  gateways: number;
  /** Secret values encrypted again. */
  values: number;
}

/**
 * Encrypts again, under the current SECRETS_KEY, every gateway secret stored under another key
 * (contract §20 "Secrets at rest"; `npm run secrets:rotate`). Values already under the current key
 * are left alone, so running it twice is harmless. A value under a key that is neither
 * SECRETS_KEY nor SECRETS_KEY_PREVIOUS stops the run with an error naming the key id.
 */
export async function rotateGatewaySecrets(
  dataSource: DataSource,
  cipher: SecretsCipher,
): Promise<RotationResult> {
  const current = cipher.currentKeyId;
  if (!current) throw new Error('SECRETS_KEY is not set: there is no key to encrypt the secrets under.');
  const repo = dataSource.getRepository(Gateway);
  const result: RotationResult = { gateways: 0, values: 0 };
  for (const gateway of await repo.find({ order: { id: 'ASC' } })) {
    const secrets = gateway.secrets ?? {};
    const stale = Object.values(secrets).filter((v) => storedKeyId(v) !== current).length;
    if (stale === 0) continue;
    await repo.update({ id: gateway.id }, { secrets: reencryptSecrets(cipher, gateway.code, secrets) });
    result.gateways += 1;
    result.values += stale;
  }
  return result;
}
