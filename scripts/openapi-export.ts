// `npm run openapi:export`: builds the application WITHOUT listening (on a throw-away embedded
// SQLite file) and writes the OpenAPI document to openapi.json at the repository root. Commit the
// result: test/openapi/openapi.e2e-spec.ts fails when the served document drifts from it.
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/app-config';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../src/openapi/openapi';

/** The repository root: this file runs as dist/scripts/openapi-export.js. */
const OPENAPI_FILE = resolve(__dirname, '..', '..', 'openapi.json');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'checkout-openapi-'));
  try {
    const config = loadConfig({ SQLITE_PATH: join(dir, 'export.sqlite'), LOG_LEVEL: 'silent' });
    const { app } = await createApp(config);
    try {
      writeFileSync(OPENAPI_FILE, serializeOpenApiDocument(buildOpenApiDocument(app)));
    } finally {
      await app.close();
    }
    process.stdout.write(`Wrote ${OPENAPI_FILE}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
