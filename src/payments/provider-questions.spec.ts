import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ANSWER_REUSE_MS,
  MAX_CALLS_PER_SUBJECT,
  ProviderDeadlinePassed,
  ProviderQuestions,
} from './provider-questions';

/** A provider call that counts itself and answers after `ms`. */
function counted(ms = 5, answer: unknown = 'open') {
  const calls = { n: 0 };
  const call = async () => {
    calls.n++;
    await sleep(ms);
    return answer;
  };
  return { calls, call };
}

describe('ProviderQuestions: single flight and a short answer cache (contract §20.1)', () => {
  it('joins the call in flight: 100 concurrent questions make one call', async () => {
    const questions = new ProviderQuestions();
    const { calls, call } = counted(20);
    const answers = await Promise.all(Array.from({ length: 100 }, () => questions.ask('inquire:R1', call)));
    assert.equal(calls.n, 1);
    assert.ok(answers.every((answer) => answer === 'open'));
  });

  it('reuses a settled answer, and a failure, within the window, then asks again', async (t) => {
    t.mock.timers.enable({ apis: ['Date'] });
    const questions = new ProviderQuestions();
    const { calls, call } = counted(0);
    await questions.ask('inquire:R2', call);
    t.mock.timers.tick(ANSWER_REUSE_MS - 1);
    await questions.ask('inquire:R2', call);
    assert.equal(calls.n, 1);
    t.mock.timers.tick(2);
    await questions.ask('inquire:R2', call);
    assert.equal(calls.n, 2);

    let failures = 0;
    const failing = () => {
      failures++;
      return Promise.reject(new Error('no answer'));
    };
    await assert.rejects(questions.ask('inquire:R3', failing), /no answer/);
    await assert.rejects(questions.ask('inquire:R3', failing), /no answer/);
    assert.equal(failures, 1, 'a failure is an answer too: reused');
  });

  it('bounds the calls per attempt whatever the variants of its questions', async () => {
    const questions = new ProviderQuestions();
    const { calls, call } = counted(0);
    for (let i = 0; i < 20; i++) await questions.ask(`complete-${i}:R4`, call);
    assert.equal(calls.n, MAX_CALLS_PER_SUBJECT);
    await questions.ask('inquire:R5', call);
    assert.equal(calls.n, MAX_CALLS_PER_SUBJECT + 1, 'another attempt has its own bound');
  });

  it('forgets an attempt after an act that changes it', async () => {
    const questions = new ProviderQuestions();
    const { calls, call } = counted(0);
    await questions.ask('inquire:R6', call);
    questions.forget('R6');
    await questions.ask('inquire:R6', call);
    assert.equal(calls.n, 2);
  });

  it("bounds each caller's wait by its deadline, not the shared call", async () => {
    const questions = new ProviderQuestions();
    const { calls, call } = counted(200);
    await assert.rejects(questions.ask('inquire:R7', call, Date.now() + 20), ProviderDeadlinePassed);
    assert.equal(await questions.ask('inquire:R7', call), 'open', 'the call went on for the others');
    assert.equal(calls.n, 1);
    await assert.rejects(questions.ask('inquire:R8', call, Date.now() - 1), ProviderDeadlinePassed);
  });
});
