import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FieldErrors } from '../common/errors/domain-errors';
import type { AppConfig } from '../config/app-config';
import { CardFingerprints } from './card-fingerprints';
import { isExpired, numberOnlyDefaults, readNewCard, readSavedCardCvc } from './card-input';

const NOW = new Date('2026-11-24T12:00:00Z');
const errorsOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    if (error instanceof FieldErrors) return error.errors;
    throw error;
  }
  assert.fail('no field errors');
};

describe('card input (contract §15)', () => {
  it('reads a good card: digits only, brand, four-digit year, tidy name', () => {
    const card = readNewCard(
      { card: '4111-1111 1111-1111', expiry: '11/26', cvc: '1234', name_on_card: ' A  B ' },
      {},
      NOW,
    );
    assert.deepEqual(card, {
      number: '4111111111111111',
      expiryMonth: 11,
      expiryYear: 2026,
      cvc: '1234',
      nameOnCard: 'A B',
      brand: 'Visa',
    });
    assert.equal(
      readNewCard({ card: '378282246310005', expiry: '1/2030', cvc: '123', name_on_card: 'x' }, {}, NOW)
        .brand,
      'American Express',
    );
  });

  it('reports every bad field at once', () => {
    assert.deepEqual(
      errorsOf(() =>
        readNewCard(
          { card: '4111111111111112', expiry: '10/26', cvc: '12345', name_on_card: 'n'.repeat(65) },
          {},
          NOW,
        ),
      ),
      {
        card: ['Enter a valid card number.'],
        expiry: ['This card has expired.'],
        cvc: ['Enter the 3 or 4 digits of the security code.'],
        name_on_card: ['Ensure this field has no more than 64 characters.'],
      },
    );
    assert.deepEqual(
      errorsOf(() => readNewCard({}, {}, NOW)),
      {
        card: ['This field is required.'],
        expiry: ['This field is required.'],
        cvc: ['This field is required.'],
        name_on_card: ['This field is required.'],
      },
    );
    assert.deepEqual(
      errorsOf(() =>
        readNewCard({ card: 4111111111111111, expiry: '00/30', cvc: 123, name_on_card: 5 }, {}, NOW),
      ),
      {
        card: ['Enter a valid card number.'],
        expiry: ['Enter the expiry date as MM/YY.'],
        cvc: ['Enter the 3 or 4 digits of the security code.'],
        name_on_card: ['Not a valid string.'],
      },
    );
    assert.deepEqual(
      errorsOf(() => readSavedCardCvc('')),
      { cvc: ['This field is required.'] },
    );
    assert.equal(readSavedCardCvc(' 321 '), '321');
  });

  it('fills what the test helper leaves out', () => {
    const card = readNewCard({ card: '4111 1111 1111 1111' }, numberOnlyDefaults(NOW), NOW);
    assert.deepEqual([card.expiryMonth, card.expiryYear, card.cvc, card.nameOnCard], [12, 2031, '123', '']);
  });

  it('expires at the end of the expiry month', () => {
    assert.equal(isExpired(11, 2026, NOW), false);
    assert.equal(isExpired(10, 2026, NOW), true);
    assert.equal(isExpired(1, 2027, NOW), false);
    assert.equal(isExpired(12, 2025, NOW), true);
  });
});

describe('card fingerprints', () => {
  const config = (key: string | null, keyFile: string) =>
    ({ cardFingerprint: { key, keyFile } }) as AppConfig;

  it('is a keyed hash: the same number gives the same fingerprint only under the same key', () => {
    const a = new CardFingerprints(config('k'.repeat(32), '/nonexistent'));
    const b = new CardFingerprints(config('j'.repeat(32), '/nonexistent'));
    assert.equal(a.of('4111111111111111'), a.of('4111111111111111'));
    assert.notEqual(a.of('4111111111111111'), a.of('4000000000000002'));
    assert.notEqual(a.of('4111111111111111'), b.of('4111111111111111'));
    assert.doesNotMatch(a.of('4111111111111111'), /4111/);
  });

  it('creates a private key file once when no key is configured, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fp-'));
    try {
      const file = join(dir, 'sub', 'card.key');
      const first = new CardFingerprints(config(null, file)).of('4111111111111111');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.match(readFileSync(file, 'utf8'), /^[0-9a-f]{64}$/);
      assert.equal(new CardFingerprints(config(null, file)).of('4111111111111111'), first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
