// Completes `npm run build` of the client: tsc emits no `.d.ts` it was given, so the generated
// schema.d.ts is copied beside each index.d.ts, and dist/cjs/ is marked CommonJS (this package is
// "type": "module"). `--clean` removes dist/ first.
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (process.argv[2] === '--clean') {
  rmSync(join(here, 'dist'), { recursive: true, force: true });
} else {
  for (const flavour of ['esm', 'cjs'])
    copyFileSync(join(here, 'schema.d.ts'), join(here, 'dist', flavour, 'schema.d.ts'));
  writeFileSync(join(here, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
}
