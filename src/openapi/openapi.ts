import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
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
  documentUnavailable(document);
  requireOneOf(document, ['OperationRequestDto', 'InquiryDto'], ['session_id', 'order_no']);
  return document;
}

type SchemaObject = {
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
 * through in OpenAPI 3.0: the referenced schema still has to match. Written instead as "the
 * referenced schema, or null".
 */
function nullableReferences(document: OpenAPIObject): void {
  const fix = (property: Record<string, unknown>): Record<string, unknown> => {
    const allOf = property.allOf as { $ref?: string }[] | undefined;
    if (property.nullable !== true || !allOf || allOf.length !== 1 || !allOf[0].$ref) return property;
    const { nullable: _nullable, type: _type, allOf: _allOf, ...rest } = property;
    return { ...rest, anyOf: [allOf[0], { type: 'object', nullable: true, enum: [null] }] };
  };
  for (const schema of Object.values(schemasOf(document))) {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      schema.properties![name] = fix(property);
    }
  }
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
