// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const SCRIPT = resolve(__dirname, '..', '..', '..', 'scripts', 'readme-tour.mjs');
const README = resolve(__dirname, '..', '..', '..', 'README.md');

interface Block {
  line: number;
  text: string;
}

interface ReadmeTour {
  tourBlocks(markdown: string): Block[];
  withChecks(block: Block): string;
  expectedPairs(comment: string): { name: string; value: unknown }[];
  check(dir: string, comment: string): string[];
}

const FENCE = '```';

/**
 * scripts/readme-tour.mjs (`npm run test:readme`): which README blocks it runs, and that
 * a `# → ` comment unlike the answer fails it. The tour itself runs at the end of the e2e tier.
 */
describe('the README tour runner', () => {
  let tour: ReadmeTour;
  let dir: string;
  before(async () => {
    // Compiled to require(): Node ≥ 20.19 (package.json engines) requires an ES module without top-level await.
    tour = (await import(SCRIPT)) as ReadmeTour;
    dir = mkdtempSync(join(tmpdir(), 'checkout-tour-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The last answer as the session's curl wrapper leaves it. */
  function answered(status: number, body: unknown): void {
    writeFileSync(join(dir, 'status'), `${status}\n`);
    writeFileSync(join(dir, 'body'), typeof body === 'string' ? body : JSON.stringify(body));
  }

  it('runs the sh and bash blocks in order, never those fenced no-tour, text, ts or without a language', () => {
    const markdown = [
      '# Title', //                   1
      `${FENCE}sh no-tour`, //        2
      'npm start',
      FENCE,
      `${FENCE}sh`, //                5
      'echo one',
      FENCE,
      `${FENCE}text`,
      'echo never',
      FENCE,
      `${FENCE}ts`,
      "console.log('never')",
      FENCE,
      FENCE,
      'echo never',
      FENCE,
      `${FENCE}bash`, //              17
      'echo two',
      'echo three',
      FENCE,
    ].join('\n');
    assert.deepEqual(tour.tourBlocks(markdown), [
      { line: 6, text: 'echo one' },
      { line: 18, text: 'echo two\necho three' },
    ]);
    assert.throws(
      () => tour.tourBlocks(`${FENCE}sh\necho open`),
      /README.md:1: a code block is never closed/,
    );
  });

  it('checks after each line with a "# → " comment, never in the middle of a continued command', () => {
    const text = [
      'curl -s "$CHECKOUT_URL/x/" \\',
      "  -d '{}'",
      '# → 201 {"state": "created"}',
      'curl -s -X DELETE "$CHECKOUT_URL/y/"   # → 204',
      'echo "# → 200" \\',
      '  done',
    ].join('\n');
    assert.equal(
      tour.withChecks({ line: 10, text }),
      [
        'curl -s "$CHECKOUT_URL/x/" \\',
        "  -d '{}'",
        '# → 201 {"state": "created"}',
        `__tour_check 12 '201 {"state": "created"}'`,
        'curl -s -X DELETE "$CHECKOUT_URL/y/"   # → 204',
        "__tour_check 13 '204'",
        'echo "# → 200" \\',
        '  done',
      ].join('\n'),
    );
  });

  it('checks the pairs written out in full; "…" is for the reader', () => {
    assert.deepEqual(
      tour.expectedPairs(
        '200 {"state": "paid", "session_id": "…", "sequence": 2, "paid_amount": "86.000", "is_expired": false, "deleted_at": null, "token": {…}, "agreements": ["gold-plan"], "icon": "http://localhost:3000/…"}',
      ),
      [
        { name: 'state', value: 'paid' },
        { name: 'sequence', value: 2 },
        { name: 'paid_amount', value: '86.000' },
        { name: 'is_expired', value: false },
        { name: 'deleted_at', value: null },
      ],
    );
  });

  it('passes an answer that matches its comment, at any depth', () => {
    answered(200, { results: [{ event: 'paid', payload: { state: 'paid' } }], next: 'abc' });
    assert.deepEqual(
      tour.check(dir, '200 {"results": [{"event": "paid", "state": "paid"}], "next": "…"}'),
      [],
    );
  });

  it('fails another status, a missing or different value, a body that is not JSON, and a check without a new answer', () => {
    answered(201, { state: 'created', amount: '86.000' });
    assert.deepEqual(tour.check(dir, '200 {"state": "created", …}'), [
      'status 201, the README says 200',
      'answer: {"state":"created","amount":"86.000"}',
    ]);

    answered(200, { state: 'created', amount: '86.000' });
    const problems = tour.check(dir, '200 {"state": "paid", "amount": "86.000", "order_no": "order-2"}');
    assert.deepEqual(problems.slice(0, 2), [
      'no "state": "paid" in the answer',
      'no "order_no": "order-2" in the answer',
    ]);
    assert.match(problems[2], /^answer: \{"state":"created"/);

    answered(200, '<html>');
    assert.match(tour.check(dir, '200 {"state": "paid"}')[0], /^the answer is not JSON: <html>/);

    assert.deepEqual(tour.check(dir, '200'), ['no curl answered since the last check']);
  });

  it('--check exits 1 with the mismatch on stderr (what fails the bash session)', () => {
    answered(200, { state: 'created' });
    const run = spawnSync(process.execPath, [SCRIPT, '--check', dir, '200 {"state": "paid"}'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /no "state": "paid" in the answer/);
  });

  it("the README's own tour: blocks to run, each with its checks, and no block that starts the service", () => {
    const blocks = tour.tourBlocks(readFileSync(README, 'utf8'));
    assert.ok(blocks.length >= 5, `${blocks.length} blocks`);
    const checks = blocks.map((block) => tour.withChecks(block).split('__tour_check').length - 1);
    assert.ok(checks.reduce((a, b) => a + b, 0) >= 15, `answers checked: ${checks.join(', ')}`);
    for (const block of blocks) {
      assert.doesNotMatch(block.text, /npm (start|test|run (build|test))|docker /, `README.md:${block.line}`);
      assert.doesNotMatch(
        block.text,
        /\$(API_KEY|KEY|CHECKOUT_KEY|ADMIN_PASSWORD)\b/,
        `README.md:${block.line}`,
      );
    }
  });
});
