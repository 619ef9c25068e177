import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServer } from 'node:net';
import supertest from 'supertest';
import { createApp, type ProviderOverride } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import type { RegisteredDriver } from '../../src/payments/drivers/drivers.module';
import { watchContract } from './openapi-contract';
import { tempDir } from './temp-dir';
import { createTestDatabase, TestDatabase } from './test-database';

/** The gateway-secrets key the test apps run with (32 bytes, base64). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  /** `http://127.0.0.1:<port>`: the app listens on a real port. */
  url: string;
  http: () => supertest.Agent;
  db: TestDatabase;
  /** Stops the app; drops the database unless it was shared in through `options.db`. */
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Share a database with another app instance (two replicas); the caller drops it. */
  db?: TestDatabase;
  /** Providers replaced at the edges (see createApp). */
  overrides?: ProviderOverride[];
  /** Gateway drivers registered after the built-in ones (see createApp; test/payments/one-place-driver/). */
  drivers?: readonly RegisteredDriver[];
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Every request of the agent also asserts that the app's responses so far matched openapi.json
 * (the contract check runs before the test's own expectations, so its message comes first).
 */
function checkedAgent(agent: supertest.Agent, violations: string[]): supertest.Agent {
  for (const method of ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'] as const) {
    const methods = agent as unknown as Record<string, (url: string) => supertest.Test>;
    const send = methods[method].bind(agent);
    methods[method] = (url: string) =>
      send(url).expect(() => {
        const found = violations.splice(0);
        if (found.length > 0)
          throw new Error(`Responses that differ from openapi.json:\n  ${found.join('\n  ')}`);
      });
  }
  return agent;
}

/** Boots the real application (same factory and setup as main.ts) on a fresh database. */
export async function startApp(options: StartOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const port = await freePort();
  const attachmentDir = tempDir('checkout-files-'); // unless env says otherwise
  const config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ATTACHMENT_DIR: attachmentDir.path,
    CARD_FINGERPRINT_KEY: 'test-card-fingerprint-key-0123456789abcdef',
    SECRETS_KEY: TEST_SECRETS_KEY, // `SECRETS_KEY: ''` in options.env: none (key file / refusal)
    ...db.env,
    ...options.env,
  });
  const { app } = await createApp(config, { overrides: options.overrides, drivers: options.drivers });
  const violations = watchContract(app.getHttpServer());
  await app.listen(port, '127.0.0.1');
  return {
    app,
    config,
    url: `http://127.0.0.1:${port}`,
    http: () => checkedAgent(supertest.agent(app.getHttpServer()), violations),
    db,
    async close() {
      await app.close();
      if (!options.db) await db.drop();
      attachmentDir.remove();
      if (violations.length > 0) {
        // Requests not made through http() (fetch, browsers): reported here, after the clean-up.
        throw new Error(`Responses that differ from openapi.json:\n  ${violations.join('\n  ')}`);
      }
    },
  };
}
