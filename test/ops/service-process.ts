import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../setup/test-app';

/** The built service, as `npm start` runs it (this file runs as dist/test/ops/*.js). */
export const MAIN_JS = resolve(__dirname, '..', '..', 'src', 'main.js');

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/src/main.js` with exactly these variables (plus PATH) and waits for it to exit. */
export function runServiceToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<ExitResult> {
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collectExit(child, timeoutMs);
}

function collectExit(
  child: ChildProcess,
  timeoutMs: number,
  out = { stdout: '', stderr: '' },
): Promise<ExitResult> {
  child.stdout?.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not exit within ${timeoutMs} ms\n${out.stdout}\n${out.stderr}`));
    }, timeoutMs);
    timer.unref();
    // 'close' comes after the exit and after stdout/stderr are drained.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, ...out });
    });
  });
}

export interface RunningService {
  child: ChildProcess;
  url: string;
  /** Everything written to stdout / stderr so far. */
  output: { stdout: string; stderr: string };
  /** Resolves when the process exits. */
  exited: Promise<ExitResult>;
  /** SIGKILL if still running (test clean-up). */
  kill(): void;
}

/** Starts the built service on a free port and resolves once it logs that it is listening. */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  place: { mainJs?: string; cwd?: string } = {},
): Promise<RunningService> {
  const port = await freePort();
  const child = spawn(process.execPath, [place.mainJs ?? MAIN_JS], {
    cwd: place.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const exited = collectExit(child, 10 * 60_000, output);
  await new Promise<void>((resolvePromise, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`no "listening" line within ${timeoutMs} ms:\n${output.stdout}\n${output.stderr}`)),
      timeoutMs,
    );
    const onData = (): void => {
      if (output.stdout.includes('"msg":"Checkout is listening"')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolvePromise();
      }
    };
    child.stdout?.on('data', onData);
    exited.then(
      (result) => {
        clearTimeout(timer);
        reject(new Error(`the service exited early (${result.code}):\n${result.stdout}\n${result.stderr}`));
      },
      () => undefined,
    );
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The JSON log lines written to stdout (the first-start banner and other plain text skipped). */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Polls until `check()` holds (e.g. a log line reached the pipe), or fails after `timeoutMs`. */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
