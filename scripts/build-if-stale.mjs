// Builds `dist/` only when a source it is built from changed since the last complete build, so
// `npm start` and `npm run migration:run` start in seconds when nothing changed.
//
//   node scripts/build-if-stale.mjs            build when stale (prestart, migration:run, …)
//   node scripts/build-if-stale.mjs --begin    prebuild: remember when this build started
//   node scripts/build-if-stale.mjs --done     postbuild: the build completed; stamp it
//
// The stamp `dist/.build-stamp` carries the start time of the last build that completed (its
// mtime): a file saved while that build ran is newer than the stamp, so the next start rebuilds. It
// also lists the input files that build saw, so an added or deleted file rebuilds too (folder
// mtimes are not used: building the client, `npm run client:build`, rewrites clients/typescript/dist
// and so its folder's mtime, without changing any input). A failed or interrupted build leaves no
// stamp, so the next start rebuilds too.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the service and its scripts are built from (`test/` and `bench/` are built by their own runs). */
export const BUILD_INPUTS = [
  'src',
  'scripts',
  'clients',
  'ormconfig.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package.json',
  'package-lock.json',
];

/** What `npm start` and `npm run migration:run` run: without them the build is not there. */
export const BUILD_OUTPUTS = ['dist/src/main.js', 'dist/scripts/migrate.js'];

export const STAMP = 'dist/.build-stamp';
const STARTED = 'dist/.build-started';

/** Entries under an input folder that are not inputs: a package's own build output and dependencies. */
const NOT_INPUTS = new Set(['dist', 'node_modules']);

/** Every input file under `root` (relative paths, sorted) with its modification time (ms). */
export function inputFiles(root) {
  const files = [];
  const walk = (relative) => {
    let stat;
    try {
      stat = statSync(join(root, relative));
    } catch {
      return;
    }
    if (!stat.isDirectory()) {
      files.push({ path: relative, mtimeMs: stat.mtimeMs });
      return;
    }
    for (const entry of readdirSync(join(root, relative)).sort()) {
      if (!NOT_INPUTS.has(entry)) walk(join(relative, entry));
    }
  };
  for (const input of BUILD_INPUTS) walk(input);
  return files;
}

/** The input listing a stamp records (one path a line). */
function listing(files) {
  return files.map((file) => file.path).join('\n');
}

/**
 * Why `root`'s build is stale, or null when it is fresh: every output is there, no input file is
 * newer than the stamp of the last complete build, and the input files are the ones it saw.
 */
export function staleReason(root) {
  const missing = BUILD_OUTPUTS.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  let stamp;
  let recorded;
  try {
    stamp = statSync(join(root, STAMP)).mtimeMs;
    recorded = readFileSync(join(root, STAMP), 'utf8');
  } catch {
    return 'no complete build is recorded';
  }
  const files = inputFiles(root);
  const changed = files.find((file) => file.mtimeMs > stamp);
  if (changed) return `${topOf(changed.path)} changed since the last build`;
  if (listing(files) !== recorded) return 'input files were added or removed since the last build';
  return null;
}

/** The BUILD_INPUTS entry a path is under. */
function topOf(path) {
  return BUILD_INPUTS.find((input) => path === input || path.startsWith(`${input}/`)) ?? path;
}

function main(root, argument) {
  if (argument === '--begin') {
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, STARTED), listing(inputFiles(root)));
    return 0;
  }
  if (argument === '--done') {
    // The rename keeps the mtime of --begin: the stamp says when the build started.
    if (existsSync(join(root, STARTED))) renameSync(join(root, STARTED), join(root, STAMP));
    return 0;
  }
  const reason = staleReason(root);
  if (reason === null) {
    console.log('dist/ is up to date: not rebuilding.');
    return 0;
  }
  console.log(`Building (${reason}) …`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  return build.status ?? 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(resolve(fileURLToPath(import.meta.url), '..', '..'), process.argv[2]);
}
