#!/usr/bin/env node
// Regenerates openapi-subset.json, the part of Stripe's published OpenAPI document that the Stripe
// simulator validates requests against.
//
// Usage: node test/providers/stripe/extract-subset.mjs <spec3.json|spec3.yaml> [commit]
//   The spec comes from https://github.com/stripe/openapi (openapi/spec3.json, or openapi/spec3.yaml,
//   which holds the same document). `commit` is the stripe/openapi commit it was taken from; it is
//   written into the subset's `x-source` note.
//
// Kept: for each operation the simulator serves, its path and query parameters and its
// form-encoded request body (the request side is all the simulator validates; Stripe's request
// schemas are inline, so no component is needed). Dropped: response schemas (their closure is
// ~600 components, ~800 kB) and every human-readable `description`, to keep the fixture small.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The operations the simulator serves: [path, method]. */
export const OPERATIONS = [
  ['/v1/checkout/sessions', 'post'],
  ['/v1/checkout/sessions/{session}', 'get'],
  ['/v1/checkout/sessions/{session}/expire', 'post'],
  ['/v1/customers', 'post'],
  ['/v1/payment_intents', 'post'],
  ['/v1/payment_intents/search', 'get'],
  ['/v1/payment_intents/{intent}', 'get'],
  ['/v1/payment_intents/{intent}/cancel', 'post'],
  ['/v1/payment_intents/{intent}/capture', 'post'],
  ['/v1/refunds', 'get'],
  ['/v1/refunds', 'post'],
  ['/v1/refunds/{refund}', 'get'],
];

/** A copy of `node` without `description` texts; keys of a `properties` map are names, kept. */
function withoutDescriptions(node, parentKey) {
  if (Array.isArray(node)) return node.map((item) => withoutDescriptions(item));
  if (node === null || typeof node !== 'object') return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' && typeof value === 'string' && parentKey !== 'properties') continue;
    copy[key] = withoutDescriptions(value, key);
  }
  return copy;
}

async function main() {
  const [specPath, commit] = process.argv.slice(2);
  if (!specPath) {
    console.error('usage: extract-subset.mjs <spec3.json|spec3.yaml> [stripe/openapi commit]');
    process.exit(2);
  }
  const text = readFileSync(specPath, 'utf8');
  // js-yaml comes with @redocly/cli; it is needed only for the YAML form of the spec.
  const spec = specPath.endsWith('.json') ? JSON.parse(text) : (await import('js-yaml')).load(text);
  const paths = {};
  for (const [path, method] of OPERATIONS) {
    const operation = spec.paths?.[path]?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in ${specPath}`);
    paths[path] ??= {};
    paths[path][method] = withoutDescriptions({
      operationId: operation.operationId,
      parameters: operation.parameters ?? [],
      requestBody: operation.requestBody,
    });
  }
  const subset = {
    openapi: spec.openapi,
    info: { title: spec.info.title, version: spec.info.version },
    'x-source': {
      repository: 'https://github.com/stripe/openapi',
      file: `openapi/${specPath.split('/').pop()}`,
      commit: commit ?? 'unknown',
      api_version: spec.info.version,
      note:
        'Request side only (parameters and form-encoded request bodies) of the operations the ' +
        'Stripe simulator serves, descriptions removed. Regenerate with ' +
        'test/providers/stripe/extract-subset.mjs.',
    },
    paths,
  };
  const out = join(dirname(fileURLToPath(import.meta.url)), 'openapi-subset.json');
  writeFileSync(out, `${JSON.stringify(subset, null, 1)}\n`);
  console.log(`wrote ${out}: ${OPERATIONS.length} operations from API version ${spec.info.version}`);
}

await main();
