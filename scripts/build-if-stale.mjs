// Builds `dist/` only when a source it is built from changed since the last complete build, so
// `npm start` and `npm run migration:run` start in seconds when nothing changed (issue 26 item 3).
//
//   node scripts/build-if-stale.mjs            build when stale (prestart, migration:run, …)
//   node scripts/build-if-stale.mjs --begin    prebuild: remember when this build started
//   node scripts/build-if-stale.mjs --done     postbuild: the build completed; stamp it
//
// The stamp `dist/.build-stamp` carries the start time of the last build that completed (its
// mtime): a file saved while that build ran is newer than the stamp, so the next start rebuilds. A
// failed or interrupted build leaves no stamp, so the next start rebuilds too.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
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

/** The newest modification time (ms) of a file or of any file under a folder; 0 when absent. */
function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's mtime
  for (const entry of readdirSync(path)) {
    // A package's own build output and dependencies (clients/typescript/dist/) are not inputs.
    if (entry === 'dist' || entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/**
 * Why `root`'s build is stale, or null when it is fresh: every output is there and no input is
 * newer than the stamp of the last complete build.
 */
export function staleReason(root) {
  const missing = BUILD_OUTPUTS.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  let stamp;
  try {
    stamp = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return 'no complete build is recorded';
  }
  for (const input of BUILD_INPUTS) {
    if (newestMtime(join(root, input)) > stamp) return `${input} changed since the last build`;
  }
  return null;
}

function main(root, argument) {
  if (argument === '--begin') {
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, STARTED), '');
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
