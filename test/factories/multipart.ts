import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type supertest from 'supertest';
import { transactionBody } from './transaction.factory';

type Fields = Record<string, unknown>;

/**
 * Adds a create/update body as multipart form fields: lists as repeated keys, dicts as JSON
 * strings (contract §1), everything else as its text.
 */
export function withFields(req: supertest.Test, fields: Fields): supertest.Test {
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const item of value) void req.field(name, String(item));
    else if (typeof value === 'object' && value !== null) void req.field(name, JSON.stringify(value));
    else void req.field(name, String(value));
  }
  return req;
}

/** A valid multipart create body (default fields + overrides). */
export const multipartCreate = (req: supertest.Test, overrides: Fields = {}): supertest.Test =>
  withFields(req, transactionBody(overrides));

/** Collects a response body as raw bytes, whatever its Content-Type. */
export function binaryParser(
  response: supertest.Response,
  done: (error: Error | null, body: Buffer) => void,
): void {
  const res = response as unknown as IncomingMessage; // what superagent hands a parser on Node
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

/** Every regular file under `dir`, as paths relative to it. */
export function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.push(relative(dir, full));
    }
  };
  walk(dir);
  return found.sort();
}
