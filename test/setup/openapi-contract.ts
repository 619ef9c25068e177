import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fullFormats } from 'ajv-formats/dist/formats';
import OpenAPIResponseValidator from 'openapi-response-validator';
import { hasBody } from '../../src/common/http/request-bodies';

/**
 * The contract test (contract §13): every response an e2e test's app sends on a documented route is
 * checked against the committed openapi.json — the status must be documented for the operation,
 * the media type listed under it, and a JSON body valid against its schema (formats included).
 * Paths match as written, as tools match them: `/pymt-txn/` only if the document declares it.
 * A request on a documented path with a method the document lacks, and a request whose
 * body's media type the operation does not declare but the service accepted (2xx), differ too.
 * startApp attaches it to every app; the app's close() fails the test file with what differed.
 */

interface Operation {
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface Route {
  path: string;
  method: string;
  pattern: RegExp;
  operation: Operation;
}

/** This file runs as dist/test/setup/*.js. */
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '..', '..', '..', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: object;
};

const ROUTES: Route[] = Object.entries(DOCUMENT.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    path,
    method: method.toUpperCase(),
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    operation,
  })),
);

const FORMATS = Object.fromEntries(
  Object.entries(fullFormats).map(([name, format]) => {
    const check =
      format instanceof RegExp
        ? (value: string) => format.test(value)
        : typeof format === 'function'
          ? (value: string) => (format as (v: string) => boolean)(value)
          : typeof format === 'object' && format !== null && 'validate' in format
            ? (value: string) => {
                const validate = (format as { validate: RegExp | ((v: string) => boolean) }).validate;
                return validate instanceof RegExp ? validate.test(value) : validate(value);
              }
            : () => true;
    return [name, check];
  }),
);

const validators = new Map<string, OpenAPIResponseValidator>();

/** A validator of the operation's JSON answers (the library reads each status's first media type). */
function jsonValidator(route: Route): OpenAPIResponseValidator | null {
  const key = `${route.method} ${route.path}`;
  if (!validators.has(key)) {
    const responses = Object.fromEntries(
      Object.entries(route.operation.responses).map(([status, response]) => [
        status,
        response.content?.['application/json']
          ? { ...response, content: { 'application/json': response.content['application/json'] } }
          : { ...response, content: undefined },
      ]),
    );
    validators.set(
      key,
      new OpenAPIResponseValidator({
        responses: responses as never,
        components: DOCUMENT.components,
        customFormats: FORMATS,
      }),
    );
  }
  return validators.get(key) ?? null;
}

/** The request side of an answer: what the contract check needs of it. */
export interface RequestSeen {
  method: string;
  /** The request's `Content-Type`, when it had a body. */
  contentType?: string;
}

/** The media type of a `Content-Type` value, lower-case, without parameters. */
const mediaTypeOf = (contentType: string | undefined): string =>
  (contentType ?? '').split(';')[0].trim().toLowerCase();

/** What differed between one response and the document, or null. */
export function contractViolation(
  request: RequestSeen | string,
  url: string,
  status: number,
  contentType: string | undefined,
  body: Buffer,
): string | null {
  const { method, contentType: requestType } = typeof request === 'string' ? { method: request } : request;
  const path = url.split('?')[0];
  // A 500 is a defect, never part of the contract; tests that inject a fault to provoke one assert it themselves.
  if (status === 500) return null;
  const where = `${method} ${url} → ${status}`;
  const route = ROUTES.find((r) => r.method === method && r.pattern.test(path));
  if (!route) return outsideTheDocument(method, path, status, where);
  const requestMediaType = mediaTypeOf(requestType);
  const declared = route.operation.requestBody?.content ?? {};
  if (requestMediaType && status < 300 && !(requestMediaType in declared)) {
    return `${where}: a ${requestMediaType} body was accepted, the document declares ${Object.keys(declared).join(', ') || 'no body'} for ${method} ${route.path}`;
  }
  const documented = route.operation.responses[String(status)] ?? route.operation.responses.default;
  if (!documented) return `${where}: status not documented for ${method} ${route.path}`;
  const mediaType = mediaTypeOf(contentType);
  if (body.length === 0 && !documented.content) return null;
  if (!documented.content) return `${where}: a body (${mediaType}) where the document declares none`;
  if (!(mediaType in documented.content)) {
    return `${where}: ${mediaType || 'no media type'}, documented: ${Object.keys(documented.content).join(', ')}`;
  }
  if (mediaType !== 'application/json') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return `${where}: not JSON`;
  }
  const invalid = jsonValidator(route)!.validateResponse(status, parsed);
  if (!invalid) return null;
  const errors = invalid.errors
    .map((e: { path?: string; message: string }) => `${(e as { path?: string }).path ?? ''} ${e.message}`)
    .join('; ');
  return `${where}: ${errors} — body ${JSON.stringify(parsed).slice(0, 300)}`;
}

/**
 * An answer on a route the document lacks: pages, /docs, HEAD and OPTIONS are outside the API
 * document (null), and so is a path nothing declares answered 404. A path the document declares
 * with other methods, or only in its other spelling (with or without the trailing slash), is a
 * route tools would not find: a difference unless the service answered it as no route at all.
 */
function outsideTheDocument(method: string, path: string, status: number, where: string): string | null {
  if (method === 'HEAD' || method === 'OPTIONS' || status === 404 || status === 405) return null;
  const samePath = ROUTES.find((r) => r.pattern.test(path));
  if (samePath) return `${where}: ${method} is not documented for ${samePath.path}`;
  const otherSpelling = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
  const twin = ROUTES.find((r) => r.method === method && r.pattern.test(otherSpelling));
  if (twin) return `${where}: only ${twin.path} is documented (the path's other spelling is missing)`;
  return null;
}

/** Records every violation of the responses `server` sends. */
export function watchContract(server: Server): string[] {
  const violations: string[] = [];
  server.prependListener(
    'request',
    (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
      // Read now: the trailing-slash middleware rewrites `req.url` later (Express keeps `originalUrl`).
      const url = req.url ?? '/';
      const requestType = hasBody(req) ? (req.headers['content-type'] ?? '') : undefined;
      const chunks: Buffer[] = [];
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      const keep = (chunk: unknown, encoding?: unknown) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
        chunks.push(
          Buffer.isBuffer(chunk)
            ? chunk
            : Buffer.from(
                chunk as string,
                typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
              ),
        );
      };
      res.write = ((...args: unknown[]) => {
        keep(args[0], args[1]);
        return write(...args);
      }) as typeof res.write;
      res.end = ((...args: unknown[]) => {
        keep(args[0], args[1]);
        return end(...args);
      }) as typeof res.end;
      res.once('finish', () => {
        if (req.method === 'HEAD') return;
        const violation = contractViolation(
          { method: req.method ?? 'GET', contentType: requestType },
          url,
          res.statusCode,
          res.getHeader('content-type') as string | undefined,
          Buffer.concat(chunks),
        );
        if (violation && !violations.includes(violation)) violations.push(violation);
      });
    },
  );
  return violations;
}
