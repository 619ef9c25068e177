import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from './metrics';

/**
 * Times every answered request into `http_request_duration_seconds`, labelled with the route's
 * pattern as Express matched it (`/b/checkout/v1/pymt-txn/:session_id`): a path that matched no
 * route counts as `unmatched`, so random URLs cannot grow the series without bound. Called by the
 * access log once the response is sent (`requestLogging(logger, httpMetrics(metrics))`).
 */
export function httpMetrics(metrics: Metrics) {
  return (incoming: IncomingMessage, res: ServerResponse, elapsedMs: number): void => {
    const req = incoming as Request;
    const pattern = (req.route as { path?: unknown } | undefined)?.path;
    const route = typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : 'unmatched';
    metrics.httpDuration.observe(
      { method: req.method, route, status: String(res.statusCode) },
      elapsedMs / 1000,
    );
  };
}
