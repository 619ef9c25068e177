import 'reflect-metadata';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { isSupervisor, supervise, webConcurrency } from './workers';

/** contract §17: SIGTERM ends the process within 10 s, even while requests hang. */
const SHUTDOWN_CUT_MS = 7000;
const SHUTDOWN_LIMIT_MS = 9500;

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
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // The graceful path (stop accepting, finish requests and job batches, close the pool, exit 0)
      // runs in Nest's own handler. Requests still open after 7 s (a client that never sends its
      // body) are cut, so the rest of it can run; after 9.5 s the process exits whatever hangs.
      setTimeout(() => {
        logger.warn('Closing connections whose requests did not finish in time');
        app.getHttpServer().closeAllConnections();
      }, SHUTDOWN_CUT_MS).unref();
      setTimeout(() => {
        logger.error({ limitMs: SHUTDOWN_LIMIT_MS }, 'Shutdown did not finish in time: exiting');
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS).unref();
    });
  }
  await app.listen(config.port);
  logger.info(
    { port: config.port, database: config.database.type, publicBaseUrl: config.publicBaseUrl },
    'Checkout is listening',
  );
}

/** Validates the configuration in the supervisor too, so a bad one fails once, before any fork. */
function startWorkers(workers: number): void {
  try {
    const config = loadConfig(process.env);
    if (config.database.type === 'sqlite') {
      process.stderr.write(
        'Invalid configuration:\n  - WEB_CONCURRENCY > 1 needs MySQL (DATABASE_URL): the embedded SQLite database is one process\n',
      );
      process.exit(1);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  supervise(workers, (message) =>
    process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: message })}\n`),
  );
}

let workers: number;
try {
  workers = webConcurrency(process.env);
} catch (error) {
  process.stderr.write(`Invalid configuration:\n  - ${(error as Error).message}\n`);
  process.exit(1);
}

if (isSupervisor(workers)) startWorkers(workers);
else start();

function start(): void {
  bootstrap().catch((error: unknown) => {
    // A failed start (no database, a failed migration...) has closed its connections: exit non-zero
    // so the orchestrator sees it and tries again.
    process.stderr.write(
      `Checkout failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
