/** The OpenAPI security scheme of `Authorization: Bearer $METRICS_TOKEN`. */
export const METRICS_SECURITY = 'metrics-token';
