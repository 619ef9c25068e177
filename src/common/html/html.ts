/**
 * Server-rendered HTML: markup built with the {@link html} tag, where every interpolated value is
 * escaped unless it is already {@link SafeHtml}, and the document around a page's body.
 */

/** Markup that is already safe: only {@link html} and {@link raw} make one. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export const escapeHtml = (value: string): string => value.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);

type Part = SafeHtml | string | number | null | undefined | false | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Tagged template: every interpolated value is escaped unless it is already {@link SafeHtml}. */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}

export const raw = (text: string): SafeHtml => new SafeHtml(text);

/** What a page's document says around its body. */
export interface HtmlDocument {
  language: string;
  dir: 'ltr' | 'rtl';
  /** The whole `<title>`. */
  title: string;
  stylesheet: string;
  /** An SVG icon's path. */
  icon: string;
  body: SafeHtml;
}

/** A whole page: the doctype, `<html>` with language and direction, the head, then the body. */
export function htmlDocument(page: HtmlDocument): string {
  return html`<!doctype html>
    <html lang="${page.language}" dir="${page.dir}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${page.title}</title>
        <link rel="stylesheet" href="${page.stylesheet}" />
        <link rel="icon" type="image/svg+xml" href="${page.icon}" />
      </head>
      <body>
        ${page.body}
      </body>
    </html>`.text;
}
