/**
 * Errors the services throw. One global filter ({@link ErrorFilter}) turns each into contract §2's body,
 * so services never build HTTP responses themselves.
 */

/** A DRF-style field error tree: field → messages, nested objects nest. */
export interface FieldErrorTree {
  [field: string]: string[] | FieldErrorTree;
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  /** Extra response headers (e.g. `WWW-Authenticate`, `Retry-After`). */
  readonly headers: Record<string, string> = {};
  /** The JSON body; `{"detail": message}` unless a subclass says otherwise. */
  body(): unknown {
    return { detail: this.message };
  }
}

export class FieldErrors extends DomainError {
  readonly status = 400;
  constructor(readonly errors: FieldErrorTree) {
    super('Invalid input.');
  }
  override body(): unknown {
    return this.errors;
  }
}

/** A {@link DomainError} class answering `status`, with `defaultMessage` when none is given. */
function withStatus(status: number, defaultMessage?: string) {
  return class extends DomainError {
    readonly status = status;
    constructor(message = defaultMessage) {
      super(message);
    }
  };
}

export class BadRequest extends withStatus(400) {}

export class AuthenticationFailed extends DomainError {
  readonly status = 401;
  constructor(message: string, challenge: string) {
    super(message);
    this.headers['WWW-Authenticate'] = challenge;
  }
}

export class PermissionDenied extends withStatus(403, 'You do not have permission to perform this action.') {}

export class NotFound extends withStatus(404, 'Not found.') {}

export class StateConflict extends withStatus(409) {}

export class PreconditionFailed extends withStatus(
  412,
  'Precondition failed: the resource was modified since the given ETag.',
) {}

export class PayloadTooLarge extends withStatus(413, 'Request body is too large.') {}

export class UnsupportedMediaType extends DomainError {
  readonly status = 415;
  constructor(mediaType: string) {
    super(`Unsupported media type "${mediaType}" in request.`);
  }
}

export class UnprocessableEntity extends withStatus(422) {}

export class Throttled extends DomainError {
  readonly status = 429;
  constructor(retryAfterSeconds: number) {
    super(`Request was throttled. Expected available in ${retryAfterSeconds} seconds.`);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

/** The database is out of reach or too contended right now (contract §17): retry after a moment. */
export class ServiceUnavailable extends DomainError {
  readonly status = 503;
  constructor(retryAfterSeconds = 1) {
    super('Service temporarily unavailable.');
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

/** Sets an own key (`__proto__` included: defineProperty never reaches the prototype). */
function defineOwn<T extends string[] | FieldErrorTree>(tree: FieldErrorTree, key: string, value: T): T {
  Object.defineProperty(tree, key, { value, enumerable: true, writable: true, configurable: true });
  return value;
}

/** Adds one message under a (possibly dotted) field path of a tree. */
export function addFieldError(tree: FieldErrorTree, path: string, message: string): void {
  const parts = path.split('.');
  let node: FieldErrorTree = tree;
  // Own keys only: a field named like an Object.prototype member ("constructor") is just a name.
  const own = (at: FieldErrorTree, key: string) => (Object.hasOwn(at, key) ? at[key] : undefined);
  for (const part of parts.slice(0, -1)) {
    const next = own(node, part);
    if (Array.isArray(next)) return; // the parent already failed as a whole; keep that message
    node = next ?? defineOwn(node, part, {});
  }
  const leaf = parts[parts.length - 1];
  const existing = own(node, leaf);
  if (existing === undefined) defineOwn(node, leaf, [message]);
  else if (Array.isArray(existing) && !existing.includes(message)) existing.push(message);
}
