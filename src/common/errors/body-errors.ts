import { TOO_DEEP_MESSAGE } from '../http/json-depth';
import { DomainError } from './domain-errors';

/** A body refused by its parser, with the status the parser gave it (contract §1). */
export class BodyRefused extends DomainError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a body-parser or multer error means to the client, as a {@link DomainError} (so every
 * route's filter, the pages' included, answers it like any other), or null for a failure of ours.
 * Such errors carry a `type` (body-parser), a `code` (multer) and/or a 4xx `status`.
 */
export function bodyParserError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { status?: number; type?: string; code?: string; message?: string };
  if (
    e.type === 'entity.too.large' ||
    e.code === 'LIMIT_FILE_SIZE' ||
    e.code === 'LIMIT_FIELD_VALUE' ||
    e.code === 'LIMIT_FIELD_COUNT' ||
    e.code === 'LIMIT_PART_COUNT'
  ) {
    return new BodyRefused(413, 'Request body is too large.');
  }
  if (e.type === 'entity.parse.failed') {
    return new BodyRefused(400, `JSON parse error - ${e.message ?? 'invalid JSON'}`);
  }
  if (e.type === 'querystring.parse.rangeError') {
    return new BodyRefused(400, `Form parse error - the body is ${TOO_DEEP_MESSAGE}.`);
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new BodyRefused(415, e.message ?? 'Unsupported media type.');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new BodyRefused(e.status, e.message ?? 'Bad request.');
  }
  return null;
}
