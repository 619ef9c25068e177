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
 * Only the readers' own errors count: body-parser's (and raw-body's) carry a string `type` and a
 * `status`, multer's are `MulterError`s with a `code`. Any other error with a `status` is not a
 * body refused (a provider SDK's error carries the provider's status: contract §20.1, never ours).
 */
export function bodyParserError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { status?: number; type?: unknown; code?: string; message?: string; name?: string };
  const bodyParser = typeof e.type === 'string';
  const multer = e.name === 'MulterError';
  if (!bodyParser && !multer) return null;
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
  if (bodyParser && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new BodyRefused(e.status, e.message ?? 'Bad request.');
  }
  return null;
}
