import cluster, { type Worker } from 'node:cluster';

/** How long the primary waits for its workers to finish their graceful shutdown (contract §17: < 10 s). */
const SHUTDOWN_LIMIT_MS = 9800;
/** A worker that dies is replaced after this long (not in a tight loop when it cannot start). */
const RESPAWN_DELAY_MS = 1000;

/**
 * `WEB_CONCURRENCY`: the number of worker processes to run on this machine, each a
 * whole replica (HTTP on the shared port via node:cluster, its own pool, dispatcher and jobs —
 * all safe side by side, as on several machines). 1 (the default) runs the service in this
 * process.
 */
export function webConcurrency(env: NodeJS.ProcessEnv): number {
  const text = env.WEB_CONCURRENCY;
  if (text === undefined || text === '') return 1;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new Error(`WEB_CONCURRENCY="${text}": must be an integer from 1 to 64`);
  }
  return value;
}

/** True in the primary process of a multi-worker run: it supervises, the workers serve. */
export function isSupervisor(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}

/**
 * The primary of a multi-worker run: forks the workers, replaces one that dies, and on SIGTERM or
 * SIGINT passes the signal on and exits once they all have (1 when one did not in time). A worker
 * that exits before any worker ever listened could not start (a bad setting, a database that refuses
 * `DATABASE_URL`): the primary stops the others and exits with its code, as a single process would,
 * instead of starting it again every second.
 */
export function supervise(workers: number, log: (message: string) => void): void {
  let stopping = false;
  let started = false;
  let exitCode = 0;
  const fork = (): Worker => cluster.fork();
  cluster.on('listening', () => {
    started = true;
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (!started) {
      log(`worker ${worker.process.pid} could not start (${signal ?? code}); stopping`);
      stopping = true;
      exitCode = code || 1;
      const others = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      if (others.length === 0) process.exit(exitCode);
      for (const other of others) other.process.kill('SIGTERM');
      return;
    }
    log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    setTimeout(fork, RESPAWN_DELAY_MS).unref();
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      stopping = true;
      const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      if (running.length === 0) process.exit(0);
      for (const worker of running) worker.process.kill(signal);
      setTimeout(() => {
        log('workers did not stop in time: exiting');
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS).unref();
    });
  }
  for (let i = 0; i < workers; i++) fork();
  log(`started ${workers} workers (WEB_CONCURRENCY)`);
}
