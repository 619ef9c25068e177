import type { Response } from 'express';

/** What a page handler answers: HTML, or a redirect, plus what its CSP must allow. */
export type PageResponse =
  | {
      kind: 'html';
      status: number;
      html: string;
      formTargets?: string[];
      imageSources?: string[];
      /** The page reloads itself after this many seconds (the `Refresh` header). */
      refreshSeconds?: number;
      /** The scripts the page may run (none unless given): see {@link PageScripts}. */
      scripts?: PageScripts;
    }
  | { kind: 'redirect'; status: 302 | 303; location: string };

/**
 * The only scripts a page may run: its own inline script carrying `nonce` (a fresh random value per
 * response), and those served from `origins` (a provider's host, e.g. MPGS's `checkout.min.js`,
 * contract §20). Never `*`, never `unsafe-inline`.
 */
export interface PageScripts {
  nonce: string;
  origins: string[];
}

/** The origin of an absolute URL, for a CSP source list; null when it is not http(s). */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * A strict Content-Security-Policy: nothing but our stylesheet, images and form targets, and the
 * scripts a page names (see {@link PageScripts}).
 */
export function contentSecurityPolicy(
  formTargets: string[] = [],
  imageSources: string[] = [],
  scripts?: PageScripts,
): string {
  const unique = (values: string[]) => [...new Set(values.filter((v) => /^https?:\/\/[^\s;,']+$/.test(v)))];
  const nonce = scripts && /^[A-Za-z0-9+/=_-]{16,}$/.test(scripts.nonce) ? scripts.nonce : null;
  return [
    "default-src 'none'",
    ...(nonce ? [[`script-src 'nonce-${nonce}'`, ...unique(scripts?.origins ?? [])].join(' ')] : []),
    "style-src 'self'",
    ["img-src 'self'", ...unique(imageSources)].join(' '),
    ["form-action 'self'", ...unique(formTargets)].join(' '),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function sendPage(res: Response, page: PageResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  if (page.kind === 'redirect') {
    res.status(page.status).setHeader('Location', page.location).end();
    return;
  }
  res.setHeader(
    'Content-Security-Policy',
    contentSecurityPolicy(page.formTargets, page.imageSources, page.scripts),
  );
  res.setHeader('X-Frame-Options', 'DENY');
  if (page.refreshSeconds) res.setHeader('Refresh', String(page.refreshSeconds));
  res.status(page.status).type('html').send(page.html);
}
