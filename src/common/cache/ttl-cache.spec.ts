import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('shares one load between callers until the time limit', async () => {
    const cache = new TtlCache<number>(1000);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    assert.deepEqual(await Promise.all([cache.get('k', load), cache.get('k', load)]), [1, 1]);
    assert.equal(loads, 1);
  });

  it('getLoaded uses a value already loaded, without loading again', async () => {
    const cache = new TtlCache<string>(1000);
    await cache.get('k', () => Promise.resolve('cached'));
    assert.equal(await cache.getLoaded('k', () => Promise.reject(new Error('must not load'))), 'cached');
  });

  it('getLoaded never waits for a load another caller started (inside a unit of work it would wait for the pool)', async () => {
    const cache = new TtlCache<string>(1000);
    let finishPoolLoad!: (value: string) => void;
    const poolLoad = cache.get('k', () => new Promise<string>((resolve) => (finishPoolLoad = resolve)));
    assert.equal(await cache.getLoaded('k', () => Promise.resolve('through the unit')), 'through the unit');
    finishPoolLoad('through the pool');
    assert.equal(await poolLoad, 'through the pool');
    assert.equal(await cache.get('k', () => Promise.reject(new Error('cached by now'))), 'through the unit');
  });

  it('forgets a failed load', async () => {
    const cache = new TtlCache<string>(1000);
    await assert.rejects(cache.get('k', () => Promise.reject(new Error('down'))));
    assert.equal(await cache.get('k', () => Promise.resolve('up')), 'up');
  });
});
