import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mediaTypeEssence, requestFingerprint, type FingerprintInput } from './request-fingerprint';

const base: FingerprintInput = {
  method: 'POST',
  path: '/b/checkout/v1/pymt-txn',
  mediaType: 'application/json',
  body: { amount: '86.000', pg_codes: ['sandbox'], extra: { a: 1, b: [1, 2] } },
  files: [],
};
const fp = (overrides: Partial<FingerprintInput> = {}) => requestFingerprint({ ...base, ...overrides });

describe('request fingerprint (Idempotency-Key)', () => {
  it('is a SHA-256 hex digest that ignores the key order of objects at every depth', () => {
    assert.match(fp(), /^[0-9a-f]{64}$/);
    assert.equal(fp({ body: { extra: { b: [1, 2], a: 1 }, pg_codes: ['sandbox'], amount: '86.000' } }), fp());
  });

  it('changes with any value, list order, method, path or media type', () => {
    const fingerprints = [
      fp(),
      fp({ body: { ...(base.body as object), amount: '86.0' } }),
      fp({ body: { ...(base.body as object), amount: 86 } }),
      fp({ body: { ...(base.body as object), extra: { a: 1, b: [2, 1] } } }),
      fp({ body: { ...(base.body as object), extra: { a: 1, b: [1, 2], c: null } } }),
      fp({ method: 'PATCH' }),
      fp({ path: '/b/checkout/v1/pymt-txn/abc' }),
      fp({ mediaType: 'application/x-www-form-urlencoded' }),
    ];
    assert.equal(new Set(fingerprints).size, fingerprints.length);
  });

  it('covers the uploaded files by field, name and content hash, in any order', () => {
    const a = { field: 'attachment', name: 'a.pdf', sha256: '1'.repeat(64) };
    const b = { field: 'attachment', name: 'b.pdf', sha256: '2'.repeat(64) };
    assert.equal(fp({ files: [a, b] }), fp({ files: [b, a] }));
    assert.notEqual(fp({ files: [a] }), fp());
    assert.notEqual(fp({ files: [a] }), fp({ files: [{ ...a, name: 'c.pdf' }] }));
    assert.notEqual(fp({ files: [a] }), fp({ files: [{ ...a, sha256: '3'.repeat(64) }] }));
    assert.notEqual(fp({ files: [a] }), fp({ files: [{ ...a, field: 'other' }] }));
  });

  it('reads the media type without its parameters (a multipart boundary differs every time)', () => {
    assert.equal(mediaTypeEssence('multipart/form-data; boundary=----abc'), 'multipart/form-data');
    assert.equal(mediaTypeEssence('Application/JSON; charset=utf-8'), 'application/json');
    assert.equal(mediaTypeEssence(undefined), '');
  });
});
