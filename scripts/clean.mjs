// Before a build (prebuild): removes from dist/ every compiled file whose TypeScript source is gone,
// so a deleted test or module does not keep running from its old output. The rest of dist/ stays:
// the build is incremental (tsconfig.json `incremental`, dist/.tsbuildinfo), so a build after a small
// change compiles only what it changed. `--all` removes dist/ whole (a clean build).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const DIST = 'dist';

if (process.argv.includes('--all')) {
  rmSync(DIST, { recursive: true, force: true });
} else if (existsSync(DIST)) {
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      const compiled = /\.js(\.map)?$/.exec(entry.name);
      if (!compiled) continue;
      const source = relative(DIST, path).replace(/\.js(\.map)?$/, '.ts');
      if (!existsSync(source)) rmSync(path, { force: true });
    }
  };
  walk(DIST);
}
