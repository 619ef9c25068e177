import 'reflect-metadata';
import { ConfigError, loadConfig } from '../src/config/app-config';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { openDataSource } from '../src/database/open-data-source';
import { SecretsCipher } from '../src/gateways/secrets-cipher';
import { rotateGatewaySecrets } from '../src/gateways/secrets-rotation';

/**
 * `npm run secrets:rotate`: after SECRETS_KEY was changed (the old value in SECRETS_KEY_PREVIOUS),
 * encrypts every gateway secret again under the new key (contract §20, docs/operations.md).
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const cipher = new SecretsCipher(config);
  const dataSource = await openDataSource(buildDataSourceOptions(config.database));
  try {
    const { gateways, values } = await rotateGatewaySecrets(dataSource, cipher);
    process.stdout.write(
      `Gateway secrets encrypted again under key ${cipher.currentKeyId}: ${values} value(s) of ${gateways} gateway(s).\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : String((error as Error).message ?? error)}\n`,
  );
  process.exit(1);
});
