import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { parse as parseQuery } from 'qs';

/**
 * Checks requests to the Stripe simulator against openapi-subset.json, the request side of Stripe's
 * published OpenAPI document (github.com/stripe/openapi; see extract-subset.mjs), and answers the
 * way Stripe does when one does not fit (https://docs.stripe.com/api/errors, https://docs.stripe.com/error-codes):
 * 404 for a URL Stripe does not serve, 400 `parameter_unknown`, `parameter_missing`,
 * `parameter_invalid_integer`, … with `param` in Stripe's bracket notation (`line_items[0][price_data][currency]`).
 */

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: object;
}
interface Operation {
  operationId: string;
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: object }>; required?: boolean };
}
interface SubsetDocument {
  info: { version: string };
  'x-source': Record<string, string> & { commit: string; api_version: string };
  paths: Record<string, Record<string, Operation>>;
}

/** This file runs as dist/test/providers/stripe/*.js; the fixture stays beside the source. */
export const SUBSET_PATH = resolve(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'test',
  'providers',
  'stripe',
  'openapi-subset.json',
);

/**
 * Request parameters of the API version the SDK pins that the subset's older version lacks or
 * still has (openapi-overlay.json names its sources): added to, or removed from, an operation's
 * form body before anything is validated.
 */
export const OVERLAY_PATH = resolve(SUBSET_PATH, '..', 'openapi-overlay.json');

interface Overlay {
  'x-source': Record<string, string>;
  operations: Record<string, { add?: Record<string, object>; remove?: string[] }>;
}

/** An answer in Stripe's error shape. */
export interface StripeErrorAnswer {
  status: number;
  error: { type: string; message: string; code?: string; param?: string; doc_url?: string };
}

/** A request that fits the document: its operation, path parameters and decoded, typed params. */
export interface ValidRequest {
  operationId: string;
  /** The OpenAPI path template, e.g. `/v1/payment_intents/{intent}`. */
  template: string;
  pathParams: Record<string, string>;
  params: Record<string, unknown>;
}

interface Route {
  template: string;
  method: string;
  pattern: RegExp;
  names: string[];
  operation: Operation;
  validate: ValidateFunction;
}

const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;

export class OpenApiRequestValidator {
  readonly document: SubsetDocument;
  private readonly routes: Route[];

  constructor(path = SUBSET_PATH, overlayPath: string | null = OVERLAY_PATH) {
    this.document = JSON.parse(readFileSync(path, 'utf8')) as SubsetDocument;
    if (overlayPath) applyOverlay(this.document, JSON.parse(readFileSync(overlayPath, 'utf8')) as Overlay);
    // Stripe's schemas use OpenAPI 3.0 keywords (nullable) and vendor keywords (x-…); formats such as
    // unix-time are not checked. Form values are strings: coerceTypes turns "12" into 12 and
    // "true" into true where the schema says so, and a lone value into a one-item array.
    const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: 'array', validateFormats: false });
    this.routes = Object.entries(this.document.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, operation]) => {
        const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        return {
          template,
          method: method.toUpperCase(),
          pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
          names,
          operation,
          validate: ajv.compile(paramsSchema(operation)),
        };
      }),
    );
  }

  /** The request decoded and typed, or the error Stripe would answer. */
  check(method: string, path: string, query: string, body: string): ValidRequest | StripeErrorAnswer {
    const candidates = this.routes.filter((r) => r.pattern.test(path));
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      return {
        status: 404,
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        },
      };
    }
    const match = route.pattern.exec(path)!;
    const pathParams = Object.fromEntries(
      route.names.map((name, i) => [name, decodeURIComponent(match[i + 1])]),
    );
    // Stripe decodes `a[b][c]=v` and `a[0]=v` / `a[]=v` (https://docs.stripe.com/api/request-format).
    const decode = (text: string) =>
      parseQuery(text, { depth: 20, arrayLimit: 1000, parameterLimit: 10_000, allowDots: false }) as Record<
        string,
        unknown
      >;
    const params = { ...decode(query), ...(method === 'GET' ? {} : decode(body)) };
    if (!route.validate(params))
      return { status: 400, error: stripeError(route.validate.errors ?? [], params) };
    return { operationId: route.operation.operationId, template: route.template, pathParams, params };
  }
}

function applyOverlay(document: SubsetDocument, overlay: Overlay): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const change = overlay.operations[operation.operationId];
      const schema = operation.requestBody?.content['application/x-www-form-urlencoded']?.schema as
        { properties?: Record<string, object> } | undefined;
      if (!change || !schema?.properties) continue;
      for (const name of change.remove ?? []) delete schema.properties[name];
      Object.assign(schema.properties, change.add ?? {});
    }
  }
  document['x-source'] = { ...document['x-source'], overlay_api_version: overlay['x-source'].api_version };
}

/** One JSON schema for a request's params: its query parameters and its form body together. */
function paramsSchema(operation: Operation): object {
  const body = operation.requestBody?.content['application/x-www-form-urlencoded']?.schema as
    { properties?: Record<string, object>; required?: string[] } | undefined;
  const query = operation.parameters.filter((p) => p.in === 'query');
  return closed({
    type: 'object',
    additionalProperties: false,
    properties: {
      ...Object.fromEntries(query.map((p) => [p.name, p.schema])),
      ...(body?.properties ?? {}),
    },
    required: [...query.filter((p) => p.required).map((p) => p.name), ...(body?.required ?? [])],
  });
}

/**
 * A copy of `schema` where every object with listed properties refuses others. The document marks
 * only the top level `additionalProperties: false`, but Stripe refuses unknown nested parameters
 * too (`Received unknown parameter: payment_intent_data[bogus]`).
 */
function closed(schema: unknown): object {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema as object;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, closed(sub)]))
        : closed(value);
  }
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

/** `/line_items/0/price_data` → `line_items[0][price_data]`. */
function bracketed(pointer: string, extra?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.map((p, i) => (i === 0 ? p : `[${p}]`)).join('');
}

function valueAt(params: Record<string, unknown>, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      params,
    );
}

/**
 * The one error Stripe would report: an unknown parameter first, then a missing one, then the
 * deepest invalid value (anyOf branches report several; the deepest is the one that was meant).
 */
function stripeError(errors: ErrorObject[], params: Record<string, unknown>): StripeErrorAnswer['error'] {
  const unknown = errors.find((e) => e.keyword === 'additionalProperties');
  if (unknown) {
    const param = bracketed(
      unknown.instancePath,
      (unknown.params as { additionalProperty: string }).additionalProperty,
    );
    return {
      type: 'invalid_request_error',
      code: 'parameter_unknown',
      param,
      message: `Received unknown parameter: ${param}`,
      doc_url: docUrl('parameter_unknown'),
    };
  }
  const missing = errors.find((e) => e.keyword === 'required');
  if (missing) {
    const param = bracketed(
      missing.instancePath,
      (missing.params as { missingProperty: string }).missingProperty,
    );
    return {
      type: 'invalid_request_error',
      code: 'parameter_missing',
      param,
      message: `Missing required param: ${param}.`,
      doc_url: docUrl('parameter_missing'),
    };
  }
  const deepest = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  const param = bracketed(deepest.instancePath);
  const value = valueAt(params, deepest.instancePath);
  const typeError = errors.find((e) => e.instancePath === deepest.instancePath && e.keyword === 'type');
  const expected = (typeError?.params as { type?: string } | undefined)?.type;
  if (expected === 'integer' || expected === 'number') {
    return {
      type: 'invalid_request_error',
      code: 'parameter_invalid_integer',
      param,
      message: `Invalid integer: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
      doc_url: docUrl('parameter_invalid_integer'),
    };
  }
  const allowed = errors.find((e) => e.instancePath === deepest.instancePath && e.keyword === 'enum');
  if (allowed) {
    const values = (allowed.params as { allowedValues: unknown[] }).allowedValues.map(String);
    return {
      type: 'invalid_request_error',
      param,
      message: `Invalid ${param}: must be one of ${values.join(', ')}`,
    };
  }
  return {
    type: 'invalid_request_error',
    param,
    message: `Invalid ${param}: ${deepest.message ?? 'does not match the API'}`,
  };
}
