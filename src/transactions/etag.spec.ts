import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { etagOf, ifMatchAllows, noneMatchHolds } from './etag';

describe('If-Match (RFC 9110 §13.1.1)', () => {
  const etag = etagOf({ version: 3 });

  it('the ETag is the row version, quoted', () => {
    assert.equal(etag, '"3"');
  });
  it('matches the same strong tag, alone or in a list, and *', () => {
    assert.equal(ifMatchAllows('"3"', etag), true);
    assert.equal(ifMatchAllows(' "1", "3" ', etag), true);
    assert.equal(ifMatchAllows('*', etag), true);
  });
  it('never matches a weak tag: If-Match compares strongly', () => {
    assert.equal(ifMatchAllows('W/"3"', etag), false);
    assert.equal(ifMatchAllows('W/"3", "4"', etag), false);
  });
  it('refuses another version and malformed values', () => {
    for (const header of ['"4"', '3', '"3', '', '"*"', '*, "3"x', 'W/3']) {
      assert.equal(ifMatchAllows(header, etag), false, header);
    }
  });
});

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  const etag = etagOf({ version: 3 });

  it('holds for the same tag compared weakly, alone or in a list, and *', () => {
    for (const header of ['"3"', 'W/"3"', '"1", W/"3"', '*']) {
      assert.equal(noneMatchHolds(header, etag), true, header);
    }
  });
  it('does not hold for another version or a malformed value', () => {
    for (const header of ['"4"', '3', '"3', '', 'W/3', '"*"']) {
      assert.equal(noneMatchHolds(header, etag), false, header);
    }
  });
});
