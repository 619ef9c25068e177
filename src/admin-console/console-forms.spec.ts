import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CreateCurrencyDto } from '../admin/dto/currency.dto';
import { FieldErrors, StateConflict } from '../common/errors/domain-errors';
import { submitForm, type FormFieldSpec } from './console-forms';
import { listState } from './resource-pages';

const SPECS: FormFieldSpec[] = [
  { name: 'code', kind: 'text', required: true },
  { name: 'digits', kind: 'text' },
  { name: 'secret', kind: 'password' },
];

describe('console resource forms', () => {
  it('saves a valid form with the DTO value and answers null', async () => {
    const saved: CreateCurrencyDto[] = [];
    const state = await submitForm(
      { code: 'kwd', digits: '3', secret: 's' },
      SPECS,
      CreateCurrencyDto,
      (v) => {
        saved.push(v);
        return Promise.resolve();
      },
    );
    assert.equal(state, null);
    assert.equal(saved.length, 1);
    assert.equal(saved[0].code, 'KWD');
    assert.equal(saved[0].digits, 3);
  });

  it('shows an invalid form again (400, password emptied) without saving', async () => {
    let calls = 0;
    const state = await submitForm({ code: '', secret: 's' }, SPECS, CreateCurrencyDto, () => {
      calls += 1;
      return Promise.resolve();
    });
    assert.equal(calls, 0);
    assert.equal(state?.status, 400);
    assert.deepEqual(state?.values, { code: '', digits: '', secret: '' });
    assert.ok(Array.isArray(state?.errors?.code));
  });

  it("shows the save's field errors (400), and a conflict only when asked (409)", async () => {
    const fieldErrors = await submitForm({ code: 'KWD' }, SPECS, CreateCurrencyDto, () =>
      Promise.reject(new FieldErrors({ code: ['taken'] })),
    );
    assert.equal(fieldErrors?.status, 400);
    assert.deepEqual(fieldErrors?.errors, { code: ['taken'] });

    const conflict = () => Promise.reject(new StateConflict('in use'));
    const shown = await submitForm({ code: 'KWD' }, SPECS, CreateCurrencyDto, conflict, {
      showConflicts: true,
    });
    assert.equal(shown?.status, 409);
    assert.deepEqual(shown?.notice, { kind: 'error', text: 'in use' });
    await assert.rejects(submitForm({ code: 'KWD' }, SPECS, CreateCurrencyDto, conflict), StateConflict);
  });

  it('says what the last removal did only for a known `removed` value', () => {
    const values = { code: '' };
    const removed = { deleted: 'Removed.' };
    assert.deepEqual(listState({ removed: 'deleted' }, values, removed), {
      status: 200,
      values,
      notice: { kind: 'ok', text: 'Removed.' },
    });
    assert.equal(listState({ removed: 'toString' }, values, removed).notice, null);
    assert.equal(listState({}, values, removed).notice, null);
  });
});
