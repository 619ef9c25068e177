import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The directories made by {@link tempDir} in this process and not removed yet. */
const left = new Set<string>();

process.on('exit', () => {
  for (const path of left) rmSync(path, { recursive: true, force: true });
});

/**
 * A new directory under the system's temporary one (`prefix` + random letters). `remove()` takes it
 * away; whatever is still there when the process exits (an app that failed to start, or one ended
 * through `app.close()` to keep its database for another) is removed then.
 */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  left.add(path);
  return {
    path,
    remove() {
      left.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
