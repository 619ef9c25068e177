import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration } from './duration';

describe('duration', () => {
  it('parses HH:MM:SS and D HH:MM:SS', () => {
    assert.equal(parseDuration('01:00:00'), 3600);
    assert.equal(parseDuration('00:30:00'), 1800);
    assert.equal(parseDuration('1 00:00:00'), 86400);
    assert.equal(parseDuration('30 00:00:00'), 30 * 86400);
    assert.equal(parseDuration('48:00:00'), 2 * 86400);
  });

  it('refuses what is not a duration', () => {
    for (const text of ['', '1:00', '00:60:00', '00:00:60', '1 24:00:00', 'abc', '-01:00:00', '01:00:00.5']) {
      assert.equal(parseDuration(text), null, text);
    }
  });

  it('normalises the text it echoes', () => {
    assert.equal(formatDuration(1800), '00:30:00');
    assert.equal(formatDuration(86400), '1 00:00:00');
    assert.equal(formatDuration(2 * 86400 + 3 * 3600 + 4 * 60 + 5), '2 03:04:05');
  });
});
