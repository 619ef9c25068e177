import { Money } from '../../../common/money/money';

/**
 * The text formats of KNET's RAW integration and the rules on their fields. Sources:
 * KNET Merchant Integration Manual K-064 v1.4 §3.5.4 (request fields and lengths), §3.5.5 (response
 * fields), §3.7.2 (tranPipe XML), §5 (result samples), §9.1.1 (characters KNET refuses); KNET's
 * PHP RAW sample (`SendPerformREQuest.php`: the request is `key=value` pairs joined by `&`, values
 * written as they are).
 */

/** KWD's ISO 4217 numeric code, the only currency KNET takes (K-064 §3.5.4 "Currency Code"). */
export const KWD_NUMERIC = '414';

/** Actions of the RAW protocol (K-064 §3.5.4 "Action", §3.7). */
export const KNET_ACTION = { purchase: '1', refund: '2', inquiry: '8' } as const;

/** The payment page's languages (K-064 §3.5.4 "Language"). */
export type KnetLanguage = 'EN' | 'AR';

/** The user-defined fields KNET stores with a payment and returns in its answers. */
export type KnetUdfs = Partial<Record<'udf1' | 'udf2' | 'udf3' | 'udf4' | 'udf5', string>>;
export const UDF_NAMES = ['udf1', 'udf2', 'udf3', 'udf4', 'udf5'] as const;

/** A request we refuse to build: the message names the field, never a secret. */
export class KnetRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KnetRequestError';
  }
}

/**
 * The longest track ID we send: 19. K-064 §3.5.4 allows 40 alphanumerics for "Track ID", but an
 * inquiry or a refund by track id sends it again as `transid` (§3.5.3's table: "Track ID | Original
 * TrackId | TrackID"; §3.7.2), which §3.5.4 limits to 19 ("Trans ID … STRING 19 … Refund /
 * Inquiry"). A longer track could be paid at KNET but never asked about nor refunded.
 */
export const TRACK_ID_MAX = 19;
/** Track ID: alphanumeric (K-064 §3.5.4 "Track ID"; §9.1.1 lists `-=[]/?.` as refused), ≤ 19. */
const TRACK_ID = new RegExp(`^[A-Za-z0-9]{1,${TRACK_ID_MAX}}$`);
/**
 * UDF values: KNET refuses `@` and `/` (K-064 §9.1.1) and its sample kit a longer list of
 * punctuation and line breaks; `&` and `=` would break the `key=value&…` text. We allow letters,
 * digits, space, `.`, `_` and `-`, at most 255 (K-064 §3.5.4).
 */
const UDF_VALUE = /^[A-Za-z0-9 ._-]{0,255}$/;
/** Amount: at most 10 characters with the decimal point (K-064 §3.5.4 "Amount": STRING 10). */
const MAX_AMOUNT_LENGTH = 10;

export function checkTrackId(trackId: string): string {
  if (!TRACK_ID.test(trackId))
    throw new KnetRequestError(
      `The track ID must be 1 to ${TRACK_ID_MAX} letters or digits (KNET's transid limit, K-064 §3.5.4)`,
    );
  return trackId;
}

export function checkUdfs(udfs: KnetUdfs): KnetUdfs {
  for (const name of UDF_NAMES) {
    const value = udfs[name];
    if (value !== undefined && !UDF_VALUE.test(value)) {
      throw new KnetRequestError(
        `${name} may hold only letters, digits, space, ".", "_" and "-" (255 at most)`,
      );
    }
  }
  return udfs;
}

/**
 * The response and error URLs: absolute http(s), no query string or fragment (KNET's sample kit:
 * "the Response URL SHOULD NOT have any additional parameters or query string"), at most 255
 * characters (K-064 §3.5.4). KNET only talks to https in production (K-064 §2.3).
 */
export function checkMerchantUrl(name: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KnetRequestError(`${name} must be an absolute URL`);
  }
  if (!['https:', 'http:'].includes(parsed.protocol) || parsed.search || parsed.hash || /[\s&=]/.test(url)) {
    throw new KnetRequestError(`${name} must be an http(s) URL without query string, fragment, "&" or "="`);
  }
  if (url.length > 255) throw new KnetRequestError(`${name} must be at most 255 characters`);
  return url;
}

/**
 * A KWD amount as KNET wants it: exactly three decimals (`15.750`, `10.000`; K-064 §3.5.4).
 * Amounts with more than three significant decimals are refused, never rounded.
 */
export function knetAmount(amount: string): string {
  let value: Money;
  try {
    value = new Money(amount);
  } catch {
    throw new KnetRequestError('The amount must be a decimal number');
  }
  if (!value.isFinite() || value.lte(0)) throw new KnetRequestError('The amount must be positive');
  if (value.decimalPlaces() > 3) throw new KnetRequestError('A KWD amount has at most 3 decimals');
  const text = value.toFixed(3);
  if (text.length > MAX_AMOUNT_LENGTH) throw new KnetRequestError('The amount is too large for KNET');
  return text;
}

/** Two amounts are the same money (`"20.55"` equals `"20.550"`). */
export function sameAmount(a: string, b: string): boolean {
  try {
    return new Money(a).eq(new Money(b));
  } catch {
    return false;
  }
}

/** `key=value` pairs joined by `&`, values as they are (KNET's sample kit; values checked above). */
export function joinPairs(pairs: Array<[string, string]>): string {
  return pairs.map(([key, value]) => `${key}=${value}`).join('&');
}

/** Form-encoded text (`a=1&b=NOT+CAPTURED`) to a record; the last of repeated keys wins. */
export function parsePairs(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text));
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const XML_UNESCAPES: Record<string, string> = Object.fromEntries(
  Object.entries(XML_ESCAPES).map(([char, entity]) => [entity, char]),
);

/** The tranPipe request: one element per field, no root element (K-064 §3.7.2's sample). */
export function tranPipeXml(pairs: Array<[string, string]>): string {
  return pairs
    .map(([tag, value]) => `<${tag}>${value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c])}</${tag}>`)
    .join('');
}

/**
 * Reads KNET's tranPipe answers: flat elements (`<result>CAPTURED</result><payid>…</payid>…`,
 * K-064 §3.7.3), with or without an enclosing element. Empty elements (`<udf1></udf1>`,
 * `<udf1/>`) read as "". The first occurrence of a tag wins.
 */
export function parseFlatXml(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const element = /<([A-Za-z_][\w.-]*)\s*(?:\/>|>([^<]*)<\/\1\s*>)/g;
  for (let match = element.exec(text); match; match = element.exec(text)) {
    const [, tag, value = ''] = match;
    if (!(tag in fields)) {
      fields[tag] = value.trim().replace(/&(amp|lt|gt|quot|apos);/g, (entity) => XML_UNESCAPES[entity]);
    }
  }
  return fields;
}
