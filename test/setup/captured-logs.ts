/** The real `fs` module object (an ES import would give a frozen copy of its bindings). */
const fs = process.getBuiltinModule('node:fs');

/**
 * The app's pino lines on stdout/stderr, collected (and kept out of the test report) instead of
 * written, for tests that prove what never reaches a log (contract §14, §20). pino writes through
 * fs.writeSync / fs.write, not process.stdout, so those two are wrapped while capturing.
 */
export class CapturedLogs {
  readonly lines: string[] = [];
  private readonly originalWriteSync = fs.writeSync;
  private readonly originalWrite = fs.write;

  start(): void {
    const { originalWriteSync, originalWrite } = this;
    (fs as { writeSync: unknown }).writeSync = (fd: number, data: unknown, ...rest: unknown[]): number =>
      this.capture(fd, data) ??
      (originalWriteSync as (...args: unknown[]) => number).call(fs, fd, data, ...rest);
    (fs as { write: unknown }).write = (fd: number, data: unknown, ...rest: unknown[]): void => {
      const written = this.capture(fd, data);
      if (written === null) {
        (originalWrite as (...args: unknown[]) => void).call(fs, fd, data, ...rest);
        return;
      }
      const callback = rest[rest.length - 1] as (error: null, n: number) => void;
      process.nextTick(() => callback(null, written));
    };
  }

  stop(): void {
    (fs as { writeSync: unknown }).writeSync = this.originalWriteSync;
    (fs as { write: unknown }).write = this.originalWrite;
  }

  /** A pino line for stdout/stderr: kept, and its length returned as if written; else null. */
  private capture(fd: unknown, data: unknown): number | null {
    if ((fd === 1 || fd === 2) && (typeof data === 'string' || Buffer.isBuffer(data))) {
      const text = String(data);
      if (text.startsWith('{"level"')) {
        this.lines.push(text);
        return Buffer.byteLength(text);
      }
    }
    return null;
  }
}
