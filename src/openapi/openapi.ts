import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { OperationObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { API_KEY_SECURITY, BASIC_SECURITY } from '../auth/authenticated.decorator';
import { METRICS_SECURITY } from '../metrics-endpoint/metrics-security';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The OpenAPI 3 document, generated from the controllers' and DTOs' decorators (contract §13). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Checkout API')
    .setDescription(
      'Payment transactions (checkout sessions): create, update, retrieve, pay and operate. ' +
        'Compatible with the Ottu Checkout API. Errors: `{"detail": "..."}`, or field → messages for validation (400). ' +
        'Every route answers with and without a trailing slash; every response carries `X-Request-Id`.',
    )
    .setVersion('1.0.0')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer('/', 'This server')
    .addSecurity(API_KEY_SECURITY, {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'Secret API key: `Authorization: Api-Key <prefix>.<secret>`',
    })
    .addSecurity(BASIC_SECURITY, { type: 'http', scheme: 'basic', description: 'A user created by an admin' })
    .addSecurity(METRICS_SECURITY, {
      type: 'http',
      scheme: 'bearer',
      description: '`METRICS_TOKEN` (when set): `Authorization: Bearer <token>`, for `GET /metrics` only',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) => `${controllerKey}_${methodKey}`,
  });
  markPublicOperations(document);
  keepFilesToMultipart(document);
  nullableReferences(document);
  nullInEnums(document);
  documentUnavailable(document);
  requireOneOf(document, ['OperationRequestDto', 'InquiryDto'], ['session_id', 'order_no']);
  decimalsTakeNumbers(document, ['amount', 'fee_fixed', 'fee_percent']);
  formBodiesWhereverBodies(document);
  failedResultErrors(document, { runOperation: 'OperationFailedDto', inquire: 'InquiryFailedDto' });
  trailingSlashTwins(document);
  return document;
}

type SchemaObject = {
  type?: string;
  properties?: Record<string, { format?: string }>;
  required?: string[];
  anyOf?: object[];
  allOf?: object[];
};
const schemasOf = (document: OpenAPIObject) =>
  (document.components?.schemas ?? {}) as Record<string, SchemaObject>;

/**
 * A file field (`format: binary`, the attachment) can only come in a multipart body: it leaves
 * the schema JSON and url-encoded bodies use, and multipart bodies get `<Name>Form` — the same
 * schema plus the file fields.
 */
function keepFilesToMultipart(document: OpenAPIObject): void {
  const schemas = schemasOf(document);
  const forms = new Set<string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const files = Object.entries(schema.properties ?? {}).filter(([, p]) => p.format === 'binary');
    if (files.length === 0) continue;
    for (const [field] of files) delete schema.properties![field];
    schemas[`${name}Form`] = {
      allOf: [
        { $ref: `#/components/schemas/${name}` },
        { type: 'object', properties: Object.fromEntries(files) },
      ],
    };
    forms.add(name);
  }
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const body = pathItem[method]?.requestBody as
        { content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
      const multipart = body?.content?.['multipart/form-data']?.schema;
      const name = multipart?.$ref?.split('/').pop();
      if (multipart && name && forms.has(name)) multipart.$ref = `#/components/schemas/${name}Form`;
    }
  }
}

/**
 * `nullable` next to `allOf: [$ref]` (what the plugin writes for `X | null`) does not let `null`
 * through in OpenAPI 3.0: the referenced schema still has to match, and `nullable` only counts next
 * to a `type`. A branch `{"type": "object", "nullable": true, "enum": [null]}` did, but Prism stops
 * validating every schema that holds one (its bug #1931). Written instead as the referenced schema
 * itself, inline, with `nullable: true` on its `type` — a form every 3.0 tool reads the same way.
 * A component only ever used so (the billing address, the agreement) then goes: nothing names it.
 */
function nullableReferences(document: OpenAPIObject): void {
  const schemas = schemasOf(document);
  const inlined = new Set<string>();
  const fix = (property: Record<string, unknown>): Record<string, unknown> => {
    const allOf = property.allOf as { $ref?: string }[] | undefined;
    if (property.nullable !== true || !allOf || allOf.length !== 1 || !allOf[0].$ref) return property;
    const name = allOf[0].$ref.split('/').pop()!;
    const target = schemas[name];
    inlined.add(name);
    if (!target?.type) throw new Error(`OpenAPI: nullable reference to ${name}, which has no type`);
    const { nullable: _nullable, type: _type, allOf: _allOf, ...rest } = property;
    return { ...structuredClone(target), ...rest, nullable: true };
  };
  for (const schema of Object.values(schemas)) {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      schema.properties![name] = fix(property);
    }
  }
  dropUnreferenced(document, [...inlined]);
}

/** Removes those of `names` that nothing in the document refers to any more. */
function dropUnreferenced(document: OpenAPIObject, names: string[]): void {
  const text = JSON.stringify(document);
  for (const name of names) {
    if (!text.includes(`"#/components/schemas/${name}"`)) delete schemasOf(document)[name];
  }
}

/** A nullable enum lets `null` through only when the enum lists it (OpenAPI 3.0.3 §4.7.25 `nullable`). */
function nullInEnums(document: OpenAPIObject): void {
  for (const schema of Object.values(schemasOf(document))) {
    for (const property of Object.values(schema.properties ?? {}) as {
      nullable?: boolean;
      enum?: unknown[];
    }[]) {
      if (property.nullable === true && property.enum && !property.enum.includes(null))
        property.enum.push(null);
    }
  }
}

/** Every request schema: a component named by some operation's request body (also through `allOf`). */
function requestSchemas(document: OpenAPIObject): SchemaObject[] {
  const schemas = schemasOf(document);
  const names = new Set<string>();
  const visit = (schema: { $ref?: string; allOf?: { $ref?: string }[] } | undefined): void => {
    const name = schema?.$ref?.split('/').pop();
    if (!name || names.has(name)) return;
    names.add(name);
    for (const part of schemas[name]?.allOf ?? []) visit(part);
  };
  for (const { operation } of operationsOf(document)) {
    const content = (operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> })
      ?.content;
    for (const media of Object.values(content ?? {})) visit(media.schema);
  }
  return [...names].map((name) => schemas[name]).filter(Boolean);
}

/**
 * The JSON body reader reads a number under these keys as its decimal text (common/http/json-body.ts),
 * so a request may send `"12.5"` or `12.5`: said as `oneOf` string / non-negative number. The string's
 * `pattern` stays beside it (it applies to strings only). Answers keep `type: string`: they send text.
 */
function decimalsTakeNumbers(document: OpenAPIObject, keys: string[]): void {
  for (const schema of requestSchemas(document)) {
    for (const key of keys) {
      const property = schema.properties?.[key] as { type?: string } | undefined;
      if (!property || property.type !== 'string') continue;
      const { type: _type, ...rest } = property;
      schema.properties![key] = {
        ...rest,
        oneOf: [{ type: 'string' }, { type: 'number', minimum: 0 }],
      } as never;
    }
  }
}

/**
 * Every body is read by the global BodyReadingInterceptor, which takes JSON and urlencoded alike
 * (common/http/request-bodies.ts): every operation that takes a JSON body takes the same fields as a
 * form. Multipart is read only by the attachment upload interceptor, declared where it runs.
 */
function formBodiesWhereverBodies(document: OpenAPIObject): void {
  for (const { operation } of operationsOf(document)) {
    const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
    const json = content?.['application/json'];
    if (content && json && !content['application/x-www-form-urlencoded']) {
      content['application/x-www-form-urlencoded'] = structuredClone(json);
    }
  }
}

/**
 * The routes whose error filter adds `"result": "failed"` (and on operations `"operation"`) to
 * every `{"detail"}` answer (contract §2, §16): their 401, 403 and 429 (the credentials guard runs
 * inside the filter's reach) carry those too. The inquiry's 503 stays `{"detail"}`: a body the gate
 * refused keeps its plain form there (common/errors/failed-result.filter.ts).
 */
function failedResultErrors(document: OpenAPIObject, byOperationId: Record<string, string>): void {
  for (const { operation } of operationsOf(document)) {
    const schema = byOperationId[operation.operationId ?? ''];
    if (!schema) continue;
    for (const status of ['401', '403', '429']) {
      const response = operation.responses[status] as
        { content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
      const json = response?.content?.['application/json'];
      if (!json) throw new Error(`OpenAPI: ${operation.operationId} has no JSON ${status}`);
      json.schema = { $ref: `#/components/schemas/${schema}` };
    }
    if (schema === 'OperationFailedDto') operationUnavailable(operation);
  }
}

/**
 * The operations API's 503 goes through the same filter (`"operation"`, `"result": "failed"`), or is
 * the gateway's unconfirmed answer: `"result": "pending"`, finished later by the reconciler (§20).
 */
function operationUnavailable(operation: OperationObject): void {
  const response = operation.responses['503'] as { description?: string; content?: Record<string, object> };
  response.description = `${response.description}; or the gateway did not confirm the operation in time (\`"result": "pending"\`: it may still happen, and the reconciler finishes it)`;
  response.content = {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          detail: {
            type: 'string',
            example: 'The gateway did not confirm the refund in time; it may still happen.',
          },
          operation: { type: 'string', nullable: true, example: 'refund' },
          result: { type: 'string', enum: ['failed', 'pending'] },
        },
        required: ['detail', 'operation', 'result'],
      },
    },
  };
}

/** Appended to a twin's summary. */
const TWIN_MARK = 'the same, path with a trailing slash';

/**
 * contract §1: every route answers with and without a trailing slash, and the documentation's
 * examples use the slash. Both spellings are declared, so tools (validators, mock servers, typed
 * clients) match either: the twin `<path>/` has the same operation under the id `<id>WithSlash`,
 * its summary marked so that the two read apart in the Swagger UI.
 * docs/decisions.md "Both spellings of every path in openapi.json".
 */
function trailingSlashTwins(document: OpenAPIObject): void {
  const paths: OpenAPIObject['paths'] = {};
  for (const [path, pathItem] of Object.entries(document.paths)) {
    paths[path] = pathItem;
    if (path.endsWith('/')) continue;
    const twin = structuredClone(pathItem);
    for (const method of HTTP_METHODS) {
      const operation = twin[method];
      if (!operation) continue;
      operation.operationId = `${operation.operationId}WithSlash`;
      operation.summary = `${operation.summary} (${TWIN_MARK})`;
    }
    paths[`${path}/`] = twin;
  }
  document.paths = paths;
}

/** Every operation of the document, with its path and method. */
function operationsOf(document: OpenAPIObject) {
  return Object.entries(document.paths).flatMap(([path, pathItem]) =>
    HTTP_METHODS.filter((method) => pathItem[method]).map((method) => ({
      path,
      method,
      operation: pathItem[method]!,
    })),
  );
}

/**
 * contract §17: any route that reaches the database may answer 503 (no database, or none answering in
 * time) with `Retry-After`; say so on every operation that does not already.
 */
function documentUnavailable(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation || operation.responses['503']) continue;
      operation.responses['503'] = {
        description:
          'No database answered in time (`{"detail": "Service temporarily unavailable."}`); retry later',
        headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailDto' } } },
      };
    }
  }
}

/** The request must carry at least one of `fields` (each optional on its own). */
function requireOneOf(document: OpenAPIObject, names: string[], fields: string[]): void {
  for (const name of names) {
    const schema = schemasOf(document)[name];
    if (!schema) throw new Error(`OpenAPI: no schema ${name}`);
    schema.anyOf = fields.map((field) => ({ required: [field] }));
  }
}

/**
 * Security requirements come from `@Authenticated()`, which also drives the guard: a route without
 * it takes no credentials. Say so explicitly (`security: []`) instead of leaving it unspecified.
 */
function markPublicOperations(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (operation && operation.security === undefined) operation.security = [];
    }
  }
}

/** The committed `openapi.json` text: two-space JSON and a final newline (stable diffs). */
export function serializeOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
