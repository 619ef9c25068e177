// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = resolve(__dirname, '..', '..', '..');
const RULE = '@typescript-eslint/no-restricted-imports';
const NO_TYPE_CHECKS = tseslint.configs.disableTypeChecked as Linter.Config;

/**
 * The layer errors the project's ESLint config reports for `code` as the file at `path` (relative
 * to the repository; the file need not exist). Type-aware rules are off: the layer rule needs no
 * types, and a file that does not exist has none.
 */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: [NO_TYPE_CHECKS] });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  assert.equal(result.fatalErrorCount, 0, JSON.stringify(result.messages));
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => `${m.line}: ${m.message}`);
}

/** docs/architecture.md "Layers", as eslint.config.mjs enforces it (see scripts/layers.mjs). */
describe('the layers of src/', () => {
  it('refuses an import of a higher layer, at any depth of the importing file, type-only imports too', async () => {
    const top = await layerErrors(
      'src/common/layer-fixture.ts',
      "import { TRANSACTION_STATES } from '../transactions/transaction-state';\nexport const states = TRANSACTION_STATES;\n",
    );
    assert.equal(top.length, 1);
    assert.match(top[0], /^1: '\.\.\/transactions\/transaction-state' import is restricted/);
    assert.match(top[0], /common\/ is in layer 2: it imports only folders of lower layers/);

    const nested = await layerErrors(
      'src/common/errors/layer-fixture.ts',
      "import type { Principal } from '../../auth/principal';\nexport type Caller = Principal;\n",
    );
    assert.deepEqual(nested.length, 1);
    assert.match(nested[0], /^1: '\.\.\/\.\.\/auth\/principal' import is restricted/);
  });

  it('refuses a folder of the same layer, a module directly in src/, and re-exports', async () => {
    const errors = await layerErrors(
      'src/events/layer-fixture.ts',
      [
        "import { CardDto } from '../cards/dto/card.dto';",
        "import { AppModule } from '../app.module';",
        "export { PaymentsService } from '../payments/payments.service';",
        'export const used = [CardDto, AppModule];',
      ].join('\n'),
    );
    assert.deepEqual(
      errors.map((e) => e.split(':')[0]),
      ['1', '2', '3'],
    );
    for (const error of errors) assert.match(error, /events\/ is in layer 5/);
  });

  it('lets a folder import its own files and the layers below it', async () => {
    const errors = await layerErrors(
      'src/transactions/events/layer-fixture.ts',
      [
        "import { EVENT_NAMES } from '../../events/event-types';",
        "import { TRANSACTION_STATES } from '../transaction-state';",
        "import { Money } from '../../common/money/money';",
        "import { Metrics } from '../../metrics/metrics';",
        'export const used = [EVENT_NAMES, TRANSACTION_STATES, Money, Metrics];',
      ].join('\n'),
    );
    assert.deepEqual(errors, []);
  });

  it('holds for src/ as it is: no folder or file cycle, no import against the table', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'folder-graph.mjs')], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /No folder cycles\./);
    assert.match(run.stdout, /No file cycles\./);
    assert.match(run.stdout, /No imports against the layers table\./);
  });

  it('fails the lint config when a folder of src/ is not in the table', () => {
    const root = mkdtempSync(join(tmpdir(), 'checkout-layers-'));
    try {
      cpSync(join(ROOT, 'docs', 'architecture.md'), join(root, 'docs', 'architecture.md'));
      for (const entry of readdirSync(join(ROOT, 'src'), { withFileTypes: true })) {
        if (entry.isDirectory()) mkdirSync(join(root, 'src', entry.name), { recursive: true });
      }
      mkdirSync(join(root, 'src', 'new-feature'));
      const layers = pathToFileURL(join(ROOT, 'scripts', 'layers.mjs')).href;
      const read = (dir: string) =>
        spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import { readLayers } from '${layers}'; readLayers(${JSON.stringify(dir)});`,
          ],
          { encoding: 'utf8' },
        );
      const missing = read(root);
      assert.notEqual(missing.status, 0);
      assert.match(missing.stderr, /not listed new-feature;/);
      rmSync(join(root, 'src', 'new-feature'), { recursive: true });
      assert.equal(read(root).status, 0, read(root).stderr);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
