// Removes build output before a build (cross-platform `rm -rf`).
import { rmSync } from 'node:fs';
for (const dir of process.argv.slice(2)) rmSync(dir, { recursive: true, force: true });
