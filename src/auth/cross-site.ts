import type { IncomingHttpHeaders } from 'node:http';

export const CROSS_SITE_MESSAGE = 'Cross-site requests are not allowed.';

/**
 * contract §3 "No cross-site writes": whether a browser sent this request for a page of another
 * origin. A browser that holds Basic credentials sends them on a form another site auto-posts,
 * so the credentials prove nothing there; the Fetch Metadata and `Origin` headers the browser
 * adds do (a page cannot forge or remove them). Refused: `Sec-Fetch-Site: cross-site`,
 * `same-site` (a sibling origin: only ours is trusted), and any `Origin` but ours (`null` from
 * sandboxed frames and data: pages included). `same-origin`, `none` (typed in the address bar)
 * and requests without either header (servers, SDKs, curl) pass.
 *
 * `ownOrigin` is PUBLIC_BASE_URL's origin (`https://pay.example.com`), serialized as browsers
 * serialize `Origin`: lower-case, no default port, no path.
 */
export function isCrossSite(headers: IncomingHttpHeaders, ownOrigin: string): boolean {
  const origin = headers.origin;
  if (origin !== undefined && origin !== ownOrigin) return true;
  const site = tokens(headers['sec-fetch-site']);
  return site.includes('cross-site') || (site.includes('same-site') && origin !== ownOrigin);
}

/** A header's comma-separated tokens, lower-case (Node joins a repeated header with ", "). */
function tokens(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
}
