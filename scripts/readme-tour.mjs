#!/usr/bin/env node
// `npm run test:readme`: the README is a tour that runs top to bottom as printed.
// Starts the built service (dist/) on a fresh embedded SQLite file in a temp dir, on a free port;
// pastes the `export` lines its first start prints, as the README asks the reader to; then runs
// every ```sh / ```bash block of README.md in order, in one bash session (`set -euo pipefail`).
//
// The README's conventions, which this runner checks:
//   - a block fenced ```sh no-tour (or ```bash no-tour) is shown, not run (starting the service,
//     containers, the test suite); other fences (```text, ```ts, …) are never run;
//   - `curl` is wrapped: any answer ≥ 400 fails the command, as `curl --fail` would;
//   - a comment `# → 201 {"state": "created", …}` after a command (or at the end of its line) is
//     checked against the last curl's answer: the status, and each `"name": value` pair written
//     out in full (strings without "…", numbers, true, false, null) must occur in the JSON body;
//     pairs with "…" and anything after the first line of the comment are for the reader only.
// Prints the session's output when a command fails; exits 1 then. `--verbose` always prints it.
//   node scripts/readme-tour.mjs [--verbose]
//   node scripts/readme-tour.mjs --check <dir> <comment>    (used by the session's __tour_check)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SELF = resolve(import.meta.dirname, 'readme-tour.mjs');
const ARROW = '# → ';
const TOUR_TIMEOUT_MS = 120_000;

/** The ```sh / ```bash blocks of `markdown` not marked no-tour: their text and first line number. */
export function tourBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)(.*)$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end < 0) throw new Error(`README.md:${i + 1}: a code block is never closed`);
    const runs = ['sh', 'bash'].includes(fence[1]) && !/\bno-tour\b/.test(fence[2]);
    if (runs) blocks.push({ line: i + 2, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** A block with a `__tour_check` after every line that carries a `# → ` comment. */
export function withChecks(block) {
  return block.text
    .split('\n')
    .map((line, index) => {
      const at = line.indexOf(ARROW);
      if (at < 0 || line.trimEnd().endsWith('\\')) return line;
      const comment = line.slice(at + ARROW.length).replaceAll("'", "'\\''");
      return `${line}\n__tour_check ${block.line + index} '${comment}'`;
    })
    .join('\n');
}

/** The `"name": value` pairs of a `# → ` comment that are written out in full. */
export function expectedPairs(comment) {
  const pairs = [];
  const pattern = /"([\w-]+)":\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?\b|true\b|false\b|null\b)/g;
  for (const [, name, literal] of comment.matchAll(pattern)) {
    if (literal.includes('…')) continue;
    pairs.push({ name, value: JSON.parse(literal) });
  }
  return pairs;
}

/** Whether some object anywhere in `value` has `name` equal to `expected`. */
function holds(value, name, expected) {
  if (Array.isArray(value)) return value.some((item) => holds(item, name, expected));
  if (value === null || typeof value !== 'object') return false;
  if (Object.hasOwn(value, name) && value[name] === expected) return true;
  return Object.values(value).some((item) => holds(item, name, expected));
}

/** `--check`: the last answer (in `dir`) against one `# → ` comment; a message per mismatch. */
export function check(dir, comment) {
  const statusFile = join(dir, 'status');
  if (!existsSync(statusFile)) return ['no curl answered since the last check'];
  const status = readFileSync(statusFile, 'utf8').trim();
  const body = readFileSync(join(dir, 'body'), 'utf8');
  rmSync(statusFile);
  const problems = [];
  const wantedStatus = /^(\d{3})\b/.exec(comment)?.[1];
  if (wantedStatus && wantedStatus !== status)
    problems.push(`status ${status}, the README says ${wantedStatus}`);
  const pairs = expectedPairs(comment);
  if (pairs.length === 0) return problems;
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    return [...problems, `the answer is not JSON: ${body.slice(0, 300)}`];
  }
  for (const { name, value } of pairs) {
    if (!holds(json, name, value)) problems.push(`no "${name}": ${JSON.stringify(value)} in the answer`);
  }
  if (problems.length > 0) problems.push(`answer: ${body.slice(0, 1000)}`);
  return problems;
}

/** The session's helpers: the curl wrapper (status and body kept in $TOUR_DIR) and the check. */
const PRELUDE = String.raw`
set -euo pipefail
shopt -s inherit_errexit
curl() {
  local out="" next=""
  for arg in "$@"; do
    if [ "$next" = 1 ]; then out="$arg"; next=""; fi
    case "$arg" in -o|--output) next=1 ;; esac
  done
  command curl -sS -D "$TOUR_DIR/headers" "$@" | tee "$TOUR_DIR/body"
  if [ -s "$TOUR_DIR/body" ] && [ -n "$(tail -c 1 "$TOUR_DIR/body")" ]; then echo; fi # end the line
  if [ -n "$out" ]; then cp "$out" "$TOUR_DIR/body"; fi
  local status
  status=$(grep -E '^HTTP/' "$TOUR_DIR/headers" | tail -n 1 | cut -d' ' -f2)
  printf '%s\n' "$status" > "$TOUR_DIR/status"
  if [ "$status" -ge 400 ]; then
    echo "*** curl $*: HTTP $status" >&2
    return 22
  fi
}
__tour_check() {
  node "$TOUR_SELF" --check "$TOUR_DIR" "$2" || { echo "*** README.md:$1: the answer differs from '# → $2'" >&2; return 1; }
}
`;

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts dist/src/main.js in `dir` on a fresh SQLite file; resolves with its first-start exports. */
async function startService(dir) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      ...(process.env.NODE_V8_COVERAGE ? { NODE_V8_COVERAGE: process.env.NODE_V8_COVERAGE } : {}),
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SQLITE_PATH: join(dir, 'data', 'checkout.sqlite'),
      ATTACHMENT_DIR: join(dir, 'data', 'attachments'),
      CARD_FINGERPRINT_KEY_FILE: join(dir, 'data', 'card-fingerprint.key'),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout.on('data', (chunk) => (output.text += chunk));
  child.stderr.on('data', (chunk) => (output.text += chunk));
  const exports = await new Promise((resolveExports, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no first-start banner in 60 s:\n${output.text}`)),
      60_000,
    );
    const poll = setInterval(async () => {
      const lines = output.text.split('\n').filter((line) => /^ {2}export \w+=/.test(line));
      if (lines.length < 3) return;
      clearInterval(poll);
      clearTimeout(timer);
      // The banner comes before the server listens: wait for /health.
      for (let i = 0; i < 120; i++) {
        const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return resolveExports(lines.map((line) => line.trim()));
        await new Promise((r) => setTimeout(r, 250));
      }
      reject(new Error(`the service does not answer /health:\n${output.text}`));
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before it started:\n${output.text}`));
    });
  });
  return { child, exports, output };
}

/** Runs the whole tour; resolves with { ok, transcript, blocks, checks }. */
async function runTour({ verbose }) {
  const blocks = tourBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  for (const tool of ['curl', 'jq']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) {
      throw new Error(`the README's examples need ${tool} (Debian: apt-get install ${tool})`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'checkout-readme-'));
  const work = join(dir, 'work');
  mkdirSync(work);
  const service = await startService(dir);
  try {
    const parts = [PRELUDE, ...service.exports];
    for (const block of blocks) {
      parts.push(`echo '--- README.md:${block.line}' >&2`, withChecks(block));
    }
    const script = join(dir, 'tour.sh');
    writeFileSync(script, parts.join('\n') + '\n');
    const checks = blocks.reduce((n, block) => n + block.text.split(ARROW).length - 1, 0);
    const bash = spawn('bash', [script], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, TOUR_DIR: dir, TOUR_SELF: SELF },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let transcript = '';
    const keep = (chunk) => {
      transcript += chunk;
      if (verbose) process.stdout.write(chunk);
    };
    bash.stdout.on('data', keep);
    bash.stderr.on('data', keep);
    const timer = setTimeout(() => bash.kill('SIGKILL'), TOUR_TIMEOUT_MS);
    const code = await new Promise((r) => bash.on('close', (c) => r(c)));
    clearTimeout(timer);
    return {
      ok: code === 0,
      code,
      transcript,
      blocks: blocks.length,
      checks,
      serviceOutput: service.output.text,
    };
  } finally {
    service.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The command line: the tour, or `--check` for the session's __tour_check. */
async function main() {
  if (process.argv[2] === '--check') {
    const problems = check(process.argv[3], process.argv[4]);
    for (const problem of problems) process.stderr.write(`    ${problem}\n`);
    process.exit(problems.length === 0 ? 0 : 1);
  }
  const started = performance.now();
  const verbose = process.argv.includes('--verbose');
  let result;
  try {
    result = await runTour({ verbose });
  } catch (error) {
    console.error(`README tour could not start: ${error.message}`);
    process.exit(1);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (!result.ok) {
    if (!verbose) console.log(result.transcript);
    console.log(`--- service output ---\n${result.serviceOutput.slice(-4000)}`);
    console.error(`README tour FAILED (bash exit ${result.code}) after ${seconds} s`);
    process.exit(1);
  }
  console.log(
    `README tour passed: ${result.blocks} blocks, ${result.checks} answers checked, in ${seconds} s`,
  );
}

// Run as a script; imported (by its test), only the exports.
if (resolve(process.argv[1] ?? '') === SELF) void main();
