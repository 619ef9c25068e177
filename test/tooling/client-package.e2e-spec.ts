// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { seedBasics } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';

const ROOT = resolve(__dirname, '..', '..', '..');
const MODULES = join(ROOT, 'node_modules');
const TSC = join(MODULES, 'typescript', 'bin', 'tsc');

/**
 * The README's two client snippets (ES module, then CommonJS), exactly as printed: the `ts` blocks
 * of its "typed TypeScript client" paragraph.
 */
function readmeSnippets(): { esm: string; cjs: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('**A typed TypeScript client**'), readme.indexOf('## Test it'));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
  assert.equal(blocks.length, 2, 'the README shows one ES module and one CommonJS snippet');
  return { esm: blocks[0], cjs: blocks[1] };
}

/**
 * Runs a command to its end without blocking the event loop: the started service answers the
 * command's requests from this same process.
 */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      // No V8 coverage for what runs here (npm, tsc, the compiled snippet): none of it is src/, and
      // under coverage each tsc spent ~40 % more CPU and wrote megabytes for c8 to read.
      env: { ...process.env, NODE_V8_COVERAGE: '', ...env },
      timeout: 240_000,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    assert.fail(
      `${command} ${args.join(' ')} in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
    );
  }
}

/**
 * A fresh project in `dir` that depends on the client by path, as `npm install <path>` lays it out
 * (a link in node_modules), with the repository's node_modules for @types/node: no registry.
 */
function project(dir: string, type: 'module' | 'commonjs', compilerOptions: object, source: string): void {
  mkdirSync(join(dir, 'node_modules', '@checkout'), { recursive: true });
  symlinkSync(join(dir, '..', 'client'), join(dir, 'node_modules', '@checkout', 'client'));
  symlinkSync(join(MODULES, '@types'), join(dir, 'node_modules', '@types'));
  const dependencies = { '@checkout/client': 'file:../client' };
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `shop-${type}`, private: true, type, dependencies }),
  );
  const options = { target: 'ES2022', strict: true, outDir: 'dist', types: ['node'], ...compilerOptions };
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: options, files: ['index.ts'] }),
  );
  writeFileSync(join(dir, 'index.ts'), source);
}

/**
 * clients/typescript is a package a merchant's project uses as the README shows:
 * built by its own `npm run build` (tsc, ESM + CommonJS), then compiled by the repository's tsc in
 * a fresh ES module project (nodenext) and a fresh CommonJS project, each run against a started
 * service: create, then retrieve, with the trailing-slash paths of the curl examples.
 */
describe('the @checkout/client package', () => {
  let t: TestApp;
  let apiKey: string;
  let dir: string;

  before(async () => {
    t = await startApp();
    apiKey = (await seedBasics(t)).apiKey.replace(/^Api-Key /, '');
    dir = mkdtempSync(join(tmpdir(), 'checkout-client-'));
    // The package as `npm pack` ships its sources (no dist/ of an earlier build), dependencies linked.
    cpSync(join(ROOT, 'clients', 'typescript'), join(dir, 'client'), {
      recursive: true,
      filter: (source) => !/[/\\](dist|node_modules)$/.test(source),
    });
    symlinkSync(MODULES, join(dir, 'client', 'node_modules'));
    await run('npm', ['run', 'build'], join(dir, 'client'));
  });

  after(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Compiles `project` with the repository's tsc, runs it, and checks what it created. */
  async function compileAndRun(name: string, main: string): Promise<void> {
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], join(dir, name));
    const stdout = await run(process.execPath, [main], join(dir, name), { CHECKOUT_API_KEY: apiKey });
    const [sessionId, state] = stdout.trim().split(' ');
    assert.equal(state, 'created', stdout);
    const stored = await t.http().get(`/b/checkout/v1/pymt-txn/${sessionId}/`).expect(200);
    assert.equal(stored.body.amount, '86.000');
    assert.equal(stored.body.currency_code, 'KWD');
  }

  /** The snippet where the test service runs instead of the README's localhost:3000. */
  const here = (snippet: string): string => snippet.replaceAll('http://localhost:3000', t.url);

  it('is built into dist/esm and dist/cjs with their types', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'client', 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
    };
    assert.equal(manifest.name, '@checkout/client');
    assert.deepEqual(Object.keys(manifest.dependencies), ['openapi-fetch']);
    for (const file of [
      'esm/index.js',
      'esm/index.d.ts',
      'esm/schema.d.ts',
      'cjs/index.js',
      'cjs/index.d.ts',
    ]) {
      assert.ok(readFileSync(join(dir, 'client', 'dist', file), 'utf8').length > 0, file);
    }
  });

  it("compiles and runs in an ES module project (nodenext) with the README's snippet", async () => {
    const options = { module: 'nodenext', moduleResolution: 'nodenext' };
    project(join(dir, 'esm'), 'module', options, here(readmeSnippets().esm));
    await compileAndRun('esm', 'dist/index.js');
  });

  it("compiles and runs in a CommonJS project (nodenext, and classic node10) with the README's snippet", async () => {
    const options = { module: 'nodenext', moduleResolution: 'nodenext' };
    project(join(dir, 'cjs'), 'commonjs', options, here(readmeSnippets().cjs));
    await compileAndRun('cjs', 'dist/index.js');
    const classic = { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true };
    project(join(dir, 'cjs-node10'), 'commonjs', classic, here(readmeSnippets().cjs));
    await compileAndRun('cjs-node10', 'dist/index.js');
  });
});
