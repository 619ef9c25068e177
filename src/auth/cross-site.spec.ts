import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCrossSite } from './cross-site';

const OWN = 'https://pay.example.com';

describe('isCrossSite', () => {
  it('lets through servers, the service’s own pages and typed addresses', () => {
    assert.equal(isCrossSite({}, OWN), false);
    assert.equal(isCrossSite({ origin: OWN }, OWN), false);
    assert.equal(isCrossSite({ 'sec-fetch-site': 'same-origin', origin: OWN }, OWN), false);
    assert.equal(isCrossSite({ 'sec-fetch-site': 'none' }, OWN), false);
    assert.equal(isCrossSite({ 'sec-fetch-site': 'same-site', origin: OWN }, OWN), false);
  });

  it('refuses other sites, sibling origins and opaque origins', () => {
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'Cross-Site' },
      { 'sec-fetch-site': 'same-origin, cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'same-site', origin: 'https://shop.example.com' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: '' },
      { origin: 'http://pay.example.com' },
      { origin: 'https://pay.example.com:8443' },
      { origin: `${OWN}, https://evil.example` },
      { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' },
    ]) {
      assert.equal(isCrossSite(headers, OWN), true, JSON.stringify(headers));
    }
  });
});
