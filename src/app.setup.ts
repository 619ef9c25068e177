import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { Logger } from 'pino';
import { AppConfig } from './config/app-config';
import { answerMalformedRequests } from './common/http/client-error';
import { requireKnownMediaType } from './common/http/media-type.middleware';
import { requestLogging } from './common/http/request-logging';
import { unredactedSibling } from './common/logging/logger';
import { httpMetrics } from './metrics/http-metrics';
import { Metrics } from './metrics/metrics';
import { ignoreTrailingSlash } from './common/http/trailing-slash.middleware';
import { buildOpenApiDocument } from './openapi/openapi';

/**
 * Everything about the HTTP edge that is not a module: used by main.ts AND by the e2e tests, so
 * tests run the real app. Call before `init()`/`listen()`.
 */
export function configureApp(app: NestExpressApplication, logger: Logger): NestExpressApplication {
  app.disable('x-powered-by');
  // TRUST_PROXY (config/trust-proxy.ts): which proxies' X-Forwarded-For to believe, so `req.ip` is the client's.
  app.set('trust proxy', app.get(AppConfig).trustProxy);
  // Only representations carry an ETag (the row version, set by the controllers): no body hashes.
  app.set('etag', false);
  answerMalformedRequests(app.getHttpServer(), logger);
  // The access line is built field by field with no secret in it (request-logging.ts): not redacted.
  // The metrics observe each answered request from the access log's own 'finish' listener.
  app.use(requestLogging(unredactedSibling(logger), httpMetrics(app.get(Metrics))));
  app.use(ignoreTrailingSlash);
  app.use(requireKnownMediaType);
  // No body parser here: bodies are read after authentication, by the global BodyReadingInterceptor
  // (JSON, urlencoded) and the upload interceptor (multipart), through one BodyGate (contract §3, §17).
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
    customSiteTitle: 'Checkout API',
  });
  // SIGTERM/SIGINT: stop accepting, finish in-flight requests (Node's server.close waits for them),
  // run the modules' shutdown hooks (jobs stop, the database closes last), then exit 0.
  app.enableShutdownHooks(undefined, { useProcessExit: true });
  return app;
}
