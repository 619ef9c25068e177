import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Request } from 'express';
import { canonicalJson } from '../common/canonical-json';

/** An uploaded file as the fingerprint sees it: its form field, its name and its bytes' hash. */
export interface FileFingerprint {
  field: string;
  name: string;
  sha256: string;
}

export interface FingerprintInput {
  method: string;
  /** The path without query string and trailing slash. */
  path: string;
  /** The media type without parameters (a multipart boundary differs on every request). */
  mediaType: string;
  /** The parsed body (JSON, form or multipart fields); key order does not count. */
  body: unknown;
  files: FileFingerprint[];
}

/** SHA-256 (hex) identifying "the same request" for `Idempotency-Key` (contract §11). */
export function requestFingerprint(input: FingerprintInput): string {
  const files = [...input.files].sort((a, b) => canonicalJson(a).localeCompare(canonicalJson(b)));
  return createHash('sha256')
    .update(
      canonicalJson([input.method.toUpperCase(), input.path, input.mediaType, input.body ?? null, files]),
    )
    .digest('hex');
}

/** The media type of a request, lowercase, without parameters; `""` when none is sent. */
export function mediaTypeEssence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** The fingerprint of an Express request whose body (and multipart upload) has been read. */
export async function fingerprintRequest(req: Request): Promise<string> {
  const uploads = Array.isArray(req.files) ? req.files : req.file ? [req.file] : [];
  const files = await Promise.all(
    uploads.map(async (file) => ({
      field: file.fieldname,
      name: file.originalname,
      sha256: file.path ? await hashFile(file.path) : createHash('sha256').update(file.buffer).digest('hex'),
    })),
  );
  return requestFingerprint({
    method: req.method,
    path: req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path,
    mediaType: mediaTypeEssence(req.headers['content-type']),
    body: req.body as unknown,
    files,
  });
}

function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
