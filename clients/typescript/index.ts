/**
 * A typed client of the Checkout API, generated from openapi.json (issue #14):
 * `schema.d.ts` by openapi-typescript (`npm run client:generate`), requests by openapi-fetch
 * (https://openapi-ts.dev/openapi-fetch/). The package `@checkout/client` (package.json here) is
 * built by tsc into `dist/esm` and `dist/cjs`, for `import` and `require` alike (issue 26 item 2).
 *
 *   const checkout = createCheckoutClient({ baseUrl: 'http://localhost:3000', apiKey: 'abc.def' });
 *   const { data, error } = await checkout.POST('/b/checkout/v1/pymt-txn/', { body: { … } });
 *
 * Every path, parameter, body and answer is typed from the document; `error` is the typed error
 * body (`{"detail"}` or the field tree of a 400).
 *
 * Imports name their `.js` file: Node's ESM resolution (and TypeScript's `nodenext`) require it
 * (https://nodejs.org/api/esm.html#mandatory-file-extensions).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths as documentedPaths } from './schema.js';

export type { components, operations } from './schema.js';

/**
 * Each path in both spellings, with and without its trailing slash: every route answers both
 * (contract §1) and the documentation's curl examples use the slash, while openapi.json lists the
 * paths without it. Either spelling is sent as written.
 */
export type paths = documentedPaths & {
  [
    Path in keyof documentedPaths as Path extends `${string}/` ? never : `${Path & string}/`
  ]: documentedPaths[Path];
};

export interface CheckoutClientOptions {
  /** Where the service runs, e.g. `https://checkout.example.com`. */
  baseUrl: string;
  /** A secret API key (`<prefix>.<secret>`): sent as `Authorization: Api-Key …`. */
  apiKey?: string;
  /** Or a Basic user (admin routes need an admin). */
  basic?: { username: string; password: string };
  /** A fetch to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

export type CheckoutClient = Client<paths>;

export function createCheckoutClient(options: CheckoutClientOptions): CheckoutClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.Authorization = `Api-Key ${options.apiKey}`;
  else if (options.basic) {
    const { username, password } = options.basic;
    headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  return createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: options.fetch });
}
