import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { Metrics } from './metrics';

/**
 * Times every request into `http_request_duration_seconds`, labelled with the route's pattern as
 * Express matched it (`/b/checkout/v1/pymt-txn/:session_id`): a path that matched no route
 * counts as `unmatched`, so random URLs cannot grow the series without bound.
 */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: () => void): void => {
    const started = performance.now();
    res.once('finish', () => {
      const pattern = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : 'unmatched';
      metrics.httpDuration.observe(
        { method: req.method, route, status: String(res.statusCode) },
        (performance.now() - started) / 1000,
      );
    });
    next();
  };
}
