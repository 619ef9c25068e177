import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SECURITY, BASIC_SECURITY } from '../auth/authenticated.decorator';
import { METRICS_SECURITY } from '../metrics/metrics-security';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The OpenAPI 3 document, generated from the controllers' and DTOs' decorators (SPEC §13). */
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
  return document;
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
