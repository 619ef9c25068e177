import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailable } from '../errors/domain-errors';
import { BodyGate } from './body-gate';

const settled = async (promise: Promise<unknown>): Promise<string> =>
  Promise.race([
    promise.then(
      () => 'admitted',
      () => 'refused',
    ),
    sleep(20).then(() => 'waiting'),
  ]);

describe('BodyGate', () => {
  it('admits bodies while their bytes fit, then first come first served as bytes are given back', async () => {
    const gate = new BodyGate(100, 1000);
    const a = await gate.enter(60);
    const b = await gate.enter(40);
    assert.equal(gate.bytesInFlight, 100);
    const c = gate.enter(50);
    const d = gate.enter(10); // fits, but waits behind c: no overtaking
    assert.equal(await settled(c), 'waiting');
    assert.equal(await settled(d), 'waiting');
    a();
    a(); // a second call gives nothing back twice
    assert.equal(await settled(c), 'admitted');
    assert.equal(await settled(d), 'admitted');
    assert.equal(gate.bytesInFlight, 100);
    b();
    (await c)();
    (await d)();
    assert.equal(gate.bytesInFlight, 0);
  });

  it('lets a body larger than the whole capacity in alone', async () => {
    const gate = new BodyGate(100, 1000);
    const leave = await gate.enter(10_000);
    assert.equal(gate.bytesInFlight, 100);
    leave();
    assert.equal(gate.bytesInFlight, 0);
  });

  it('refuses with ServiceUnavailable (Retry-After) once the wait since arrival is over, and admits those behind', async () => {
    const gate = new BodyGate(100, 100);
    const held = await gate.enter(90);
    const big = gate.enter(50);
    const started = performance.now();
    await assert.rejects(big, (error: unknown) => {
      assert.ok(error instanceof ServiceUnavailable);
      assert.equal(error.headers['Retry-After'], '1');
      return true;
    });
    assert.ok(performance.now() - started >= 90);
    assert.equal(await settled(gate.enter(10)), 'admitted', 'room for a small one after the refusal');
    held();
  });

  it('counts the wait from arrival: a request that already waited that long elsewhere is refused at once', async () => {
    const gate = new BodyGate(100, 100);
    await assert.rejects(gate.enter(1, performance.now() - 150), ServiceUnavailable);
    assert.equal(gate.bytesInFlight, 0);
    const leave = await gate.enter(1, performance.now() - 50);
    leave();
  });

  it('holds the bytes until the response is finished or its connection closed', async () => {
    const gate = new BodyGate(100, 1000);
    for (const end of ['finish', 'close']) {
      const res = Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false });
      await gate.enterUntilAnswered(res as unknown as ServerResponse, 70, performance.now());
      assert.equal(gate.bytesInFlight, 70, end);
      res.emit(end);
      assert.equal(gate.bytesInFlight, 0, end);
    }
    const gone = Object.assign(new EventEmitter(), { writableFinished: false, destroyed: true });
    await gate.enterUntilAnswered(gone as unknown as ServerResponse, 70, performance.now());
    assert.equal(gate.bytesInFlight, 0, 'a request already gone keeps nothing');
  });
});
