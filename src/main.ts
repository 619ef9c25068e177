import 'reflect-metadata';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { app, logger } = await createApp(config);
  await app.listen(config.port);
  logger.info(
    { port: config.port, database: config.database.type, publicBaseUrl: config.publicBaseUrl },
    'Checkout is listening',
  );
}

void bootstrap();
