import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SECURITY, BASIC_SECURITY } from '../auth/authenticated.decorator';

/** The OpenAPI 3 document, generated from the controllers' and DTOs' decorators (SPEC §13). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Checkout API')
    .setDescription(
      'Payment transactions (checkout sessions): create, update, retrieve, pay and operate. ' +
        'Compatible with the Ottu Checkout API. Errors: `{"detail": "..."}`, or field → messages for validation (400).',
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
    .build();
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) => `${controllerKey}_${methodKey}`,
  });
}
