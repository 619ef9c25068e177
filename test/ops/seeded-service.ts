import { seedBasics } from '../setup/fixtures';
import { ADMIN, startApp } from '../setup/test-app';
import { createTestDatabase, TestDatabase } from '../setup/test-database';
import { RunningService, startService } from './service-process';

export interface SeededService {
  db: TestDatabase;
  /** `Authorization` header value of an API key. */
  apiKey: string;
  service: RunningService;
}

/**
 * A fresh database seeded through the services of an in-process app (currencies, the sandbox
 * gateway, an API key), then the built service (`node dist/src/main.js`) started on it.
 */
export async function startSeededService(env: Record<string, string> = {}): Promise<SeededService> {
  const db = await createTestDatabase();
  const seeder = await startApp({ db });
  const apiKey = (await seedBasics(seeder)).apiKey;
  await seeder.close();
  const service = await startService({
    ...db.env,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  return { db, apiKey, service };
}
