import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bulkInsert } from '../../src/database/bulk-insert';
import { Transaction } from '../../src/transactions/transaction.entity';
import { createTransaction, dataSourceOf } from '../events/event-helpers';
import { dueTransactionRow } from '../factories/due-transactions';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

interface Page {
  results: {
    session_id: string;
    state: string;
    order_no: string | null;
    created_at: string;
    deleted_at: string | null;
  }[];
  next: string | null;
}

const SEARCH = '/b/checkout/v1/admin/pymt-txn/';

/** contract §18: the admin transaction search, newest first, keyset-paginated. */
describe('GET /b/checkout/v1/admin/pymt-txn/', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const search = async (query: Record<string, string | number>): Promise<Page> => {
    const res = await t.http().get(SEARCH).query(query).set('Authorization', adminAuth());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Page;
  };

  /** Every page from `query` on, following `next`. */
  const allPages = async (query: Record<string, string | number>): Promise<string[]> => {
    const seen: string[] = [];
    let page = await search(query);
    for (;;) {
      seen.push(...page.results.map((r) => r.session_id));
      if (!page.next) return seen;
      page = await search({ ...query, cursor: page.next });
    }
  };

  it('lists newest first across pages, each transaction once, with deleted ones marked', async () => {
    const email = 'pages@example.com';
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(await createTransaction(t, s, { customer_email: email, order_no: `PAGES-${i}` }));
      await new Promise((r) => setTimeout(r, 3)); // distinct created_at
    }
    await t
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', s.apiKey)
      .send({ operation: 'delete', session_id: made[1] })
      .expect(200);

    const first = await search({ customer_email: email, limit: 2 });
    assert.equal(first.results.length, 2);
    assert.ok(first.next);
    assert.deepEqual(await allPages({ customer_email: email, limit: 2 }), [...made].reverse());
    const all = await search({ customer_email: email });
    assert.equal(all.next, null, 'the last page has no next');
    const deleted = all.results.find((r) => r.session_id === made[1])!;
    assert.match(String(deleted.deleted_at), /^\d{4}-\d\d-\d\dT/);
    assert.equal(deleted.state, 'canceled');
    assert.equal(all.results.find((r) => r.session_id === made[0])!.deleted_at, null);
  });

  it('keeps its pages while transactions are being created', async () => {
    const email = 'stable@example.com';
    const existing: string[] = [];
    for (let i = 0; i < 6; i++) existing.push(await createTransaction(t, s, { customer_email: email }));
    const first = await search({ customer_email: email, limit: 2 });
    // New ones arrive between the pages: they are newer than the cursor, so never shown twice
    // and never pushing an older one off a page.
    const newer = await Promise.all(
      Array.from({ length: 4 }, () => createTransaction(t, s, { customer_email: email })),
    );
    const rest = await allPages({ customer_email: email, limit: 2, cursor: first.next! });
    const seen = [...first.results.map((r) => r.session_id), ...rest];
    assert.equal(new Set(seen).size, seen.length, 'no transaction twice');
    assert.deepEqual(new Set(seen), new Set(existing), 'every one that existed, none of the new ones');
    assert.equal(
      (await allPages({ customer_email: email, limit: 3 })).length,
      existing.length + newer.length,
    );
  });

  it('pages through transactions created in the same millisecond one by one (id breaks the tie)', async () => {
    const instant = new Date(Date.now() - 86_400_000);
    const rows = Array.from({ length: 5 }, () =>
      Object.assign(dueTransactionRow(new Date(instant.getTime() + 3_600_000)), {
        customerEmail: 'tie@example.com',
        createdAt: instant,
      }),
    );
    await bulkInsert(dataSourceOf(t).manager, Transaction, rows);
    const seen = await allPages({ customer_email: 'tie@example.com', limit: 1 });
    assert.equal(seen.length, 5);
    assert.deepEqual(new Set(seen), new Set(rows.map((r) => r.sessionId)));
  });

  it('filters by state, order_no and the created_at range', async () => {
    const email = 'filters@example.com';
    const a = await createTransaction(t, s, { customer_email: email, order_no: 'FILTER-A' });
    await new Promise((r) => setTimeout(r, 20));
    const middle = new Date();
    await new Promise((r) => setTimeout(r, 20));
    const b = await createTransaction(t, s, { customer_email: email, order_no: 'FILTER-B' });
    await t
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', s.apiKey)
      .send({ operation: 'cancel', session_id: b })
      .expect(200);

    const ids = (page: Page) => page.results.map((r) => r.session_id);
    assert.deepEqual(ids(await search({ customer_email: email, state: 'canceled' })), [b]);
    assert.deepEqual(ids(await search({ customer_email: email, state: 'created' })), [a]);
    assert.deepEqual(ids(await search({ order_no: 'FILTER-A' })), [a]);
    assert.deepEqual(ids(await search({ customer_email: email, created_after: middle.toISOString() })), [b]);
    assert.deepEqual(ids(await search({ customer_email: email, created_before: middle.toISOString() })), [a]);
    assert.deepEqual(ids(await search({ customer_email: email })), [b, a]);
    assert.deepEqual(ids(await search({ customer_email: 'nobody@example.com' })), []);
  });

  it('refuses bad filters with field errors', async () => {
    const bad = async (query: Record<string, string>, field: string, message: string | RegExp) => {
      const res = await t.http().get(SEARCH).query(query).set('Authorization', adminAuth()).expect(400);
      assert.deepEqual(Object.keys(res.body as object), [field], JSON.stringify(res.body));
      const [text] = (res.body as Record<string, string[]>)[field];
      if (typeof message === 'string') assert.equal(text, message);
      else assert.match(text, message);
    };
    await bad({ state: 'shipped' }, 'state', '"shipped" is not a valid choice.');
    await bad({ limit: '0' }, 'limit', 'Ensure this value is greater than or equal to 1.');
    await bad({ limit: '101' }, 'limit', 'Ensure this value is less than or equal to 100.');
    await bad({ limit: 'ten' }, 'limit', 'A valid integer is required.');
    await bad({ created_after: 'yesterday' }, 'created_after', /^Datetime has wrong format/);
    await bad({ created_before: '2030-01-01' }, 'created_before', /^Datetime has wrong format/);
    await bad({ cursor: 'not a cursor!' }, 'cursor', /^Invalid cursor/);
    await bad({ cursor: Buffer.from('12.abc').toString('base64url') }, 'cursor', /^Invalid cursor/);
    await bad(
      { created_after: '2030-01-02T00:00:00Z', created_before: '2030-01-01T00:00:00Z' },
      'created_before',
      'Must be later than created_after.',
    );
    await bad(
      { order_no: 'x'.repeat(129) },
      'order_no',
      'Ensure this field has no more than 128 characters.',
    );
  });

  it('answers admins only', async () => {
    await t.http().get(SEARCH).expect(401);
    await t.http().get(SEARCH).set('Authorization', s.apiKey).expect(401);
    await t.http().get(SEARCH).set('Authorization', s.merchant).expect(403);
  });
});
