// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = resolve(__dirname, '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'units.mjs');

/** Runs scripts/units.mjs on `root` (the repository by default): its exit code and lines. */
function check(root = ROOT): { status: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  assert.equal(run.stderr, '');
  return { status: run.status, lines: run.stdout.trim().split('\n') };
}

const made: string[] = [];
after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A repository whose src/ holds `files` (path under src/ → source). */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'checkout-units-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, 'src', path, '..'), { recursive: true });
    writeFileSync(join(root, 'src', path), text);
  }
  return root;
}

const HEADER = `import { EntityManager } from 'typeorm';\nimport { UnitOfWork } from '../database/unit-of-work';\n`;

/** A lower class: `save` opens a unit of its own, `write` takes the caller's manager. */
const LOWER = `${HEADER}
export class Lower {
  constructor(private readonly uow: UnitOfWork) {}
  async save(): Promise<void> {
    await this.uow.run((manager) => this.write(manager));
  }
  async write(manager: EntityManager): Promise<void> {
    await manager.query('SELECT 1');
  }
}
`;

/** A service whose `change` opens a unit and calls `call` (of Lower) as written. */
const upper = (body: string) => `${HEADER}import { Lower } from './lower';
export class Upper {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly lower: Lower,
  ) {}
  async change(): Promise<void> {
    ${body}
  }
}
`;

/**
 * The rule of docs/architecture.md's write flow, read from the sources so that it holds in every
 * run: at run time a unit inside another is seen only where the async context is tracked (SQLite,
 * DB_UNIT_CHECKS), never on production MySQL.
 */
describe('units of work are opened where they belong (scripts/units.mjs)', () => {
  it('holds for src/ as it is', () => {
    const { status, lines } = check();
    assert.equal(status, 0, lines.join('\n'));
    assert.match(lines.at(-1)!, /^Units of work: opened where they belong/);
  });

  it('passes a caller that opens the unit and hands its manager down', () => {
    const root = repository({
      'feature/lower.ts': LOWER,
      'feature/upper.ts': upper('await this.uow.run((manager) => this.lower.write(manager));'),
    });
    const { status, lines } = check(root);
    assert.equal(status, 0, lines.join('\n'));
  });

  it('fails a unit opened inside another: in the callback, or below it through another class', () => {
    const root = repository({
      'feature/lower.ts': LOWER,
      'feature/upper.ts': upper('await this.uow.run(async () => { await this.lower.save(); });'),
    });
    const { status, lines } = check(root);
    assert.equal(status, 1);
    assert.ok(
      lines.includes(
        'src/feature/upper.ts:10 nested: Upper.change calls, inside a unit, Lower.save, which opens one',
      ),
      lines.join('\n'),
    );
  });

  it('fails a method that takes a manager and opens a unit', () => {
    const root = repository({
      'feature/lower.ts': LOWER.replace(
        "await manager.query('SELECT 1');",
        "await manager.query('SELECT 1');\n    await this.uow.run(() => Promise.resolve());",
      ),
    });
    const { status, lines } = check(root);
    assert.equal(status, 1);
    assert.ok(
      lines.includes('src/feature/lower.ts:11 nested: Lower.write opens a unit inside another'),
      lines.join('\n'),
    );
  });

  it('fails a lower class that opens a unit of its own for a caller that opens units', () => {
    const root = repository({
      'feature/lower.ts': LOWER,
      'feature/upper.ts': upper(
        'await this.lower.save();\n    await this.uow.run((manager) => this.lower.write(manager));',
      ),
    });
    const { status, lines } = check(root);
    assert.equal(status, 1);
    assert.ok(
      lines.some((line) =>
        line.startsWith(
          'src/feature/upper.ts:10 below an opener: Upper opens units, and Upper.change → Lower.save',
        ),
      ),
      lines.join('\n'),
    );
  });

  it('fails an optional manager, whatever its spelling', () => {
    const root = repository({
      'feature/reads.ts': `import { EntityManager } from 'typeorm';
export class Reads {
  one(id: string, manager?: EntityManager): string { return id + String(manager); }
  two(manager: EntityManager | undefined): string { return String(manager); }
}
`,
    });
    const { status, lines } = check(root);
    assert.equal(status, 1);
    assert.deepEqual(
      lines.filter((line) => line.includes('optional manager')),
      [
        'src/feature/reads.ts:3 optional manager: manager?: EntityManager',
        'src/feature/reads.ts:4 optional manager: manager: EntityManager | undefined',
      ],
    );
  });
});
