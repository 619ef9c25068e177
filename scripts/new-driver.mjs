#!/usr/bin/env node
// Starts a gateway driver (CONTRIBUTING.md "Add a gateway driver"): `node scripts/new-driver.mjs <pg>`
// copies the test suite's smallest driver (test/payments/one-place-driver/: its catalogue entry and
// its class, which an e2e test proves works once registered) into src/payments/drivers/<pg>/ under
// the new names, and adds its line to src/payments/drivers/registered-drivers.ts. What it writes is
// a stub whose "provider" approves every payment at once: replace each method with calls to the
// provider before anything else.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const TEMPLATE = join(ROOT, 'test', 'payments', 'one-place-driver');
const DRIVERS = join(ROOT, 'src', 'payments', 'drivers');
const REGISTERED = join(DRIVERS, 'registered-drivers.ts');

const pg = process.argv[2] ?? '';
// A gateway's `pg` (src/admin/dto/admin-limits.ts PG_NAME); a letter first, so that it makes a class name.
if (!/^[a-z][a-z0-9_-]{0,63}$/.test(pg)) {
  console.error(
    'Usage: node scripts/new-driver.mjs <pg>   (lowercase letters, digits, - or _; a letter first)',
  );
  process.exit(2);
}
const words = pg.split(/[-_]/).filter(Boolean);
const pascal = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
const upper = words.map((w) => w.toUpperCase()).join('_');
const folder = join(DRIVERS, pg);
const registered = readFileSync(REGISTERED, 'utf8');
if (existsSync(folder) || registered.includes(`'./${pg}/`)) {
  console.error(`src/payments/drivers/${pg}/ exists already, or the driver is registered.`);
  process.exit(1);
}

/** The template's text under the new names, its imports of src/ made relative to the new folder. */
const renamed = (text) =>
  text
    .replaceAll('../../../src/payments/drivers/', '../')
    .replaceAll('../../../src/payments/', '../../')
    .replaceAll('../../../src/', '../../../')
    .replaceAll('ONE_PLACE', upper)
    .replaceAll('OnePlace', pascal)
    .replaceAll("'one-place'", `'${pg}'`)
    .replaceAll('./one-place', `./${pg}`)
    .replaceAll('One place (test driver)', `${pascal} (TODO: the name the console shows)`);

const STUB_NOTE = `/**
 * The \`${pg}\` driver (contract §20): TODO — written by scripts/new-driver.mjs from the test driver,
 * a stub whose "provider" approves every payment at once. Replace every method with calls to the
 * provider's client (src/payments/providers/${pg}/), cite the provider's documentation, and test it
 * against a simulator (CONTRIBUTING.md "Add a gateway driver").
 */
@Injectable()`;

const catalogue = renamed(readFileSync(join(TEMPLATE, 'one-place.catalogue.ts'), 'utf8')).replace(
  /\/\*\*[\s\S]*?\*\/\nexport const/,
  `/** The \`${pg}\` driver's catalogue entry (contract §20): TODO its settings, operations, currencies. */\nexport const`,
);
const driver = renamed(readFileSync(join(TEMPLATE, 'one-place-driver.ts'), 'utf8')).replace(
  /\/\*\*[\s\S]*?\*\/\n@Injectable\(\)/,
  STUB_NOTE,
);

// The one line (and its import): after the last driver of the list.
const importLine = `import { ${pascal}Driver } from './${pg}/${pg}-driver';\n`;
const lastImport = registered.lastIndexOf('\nimport ');
const afterImports = registered.indexOf('\n', lastImport + 1) + 1;
const listEnd = registered.indexOf('];', registered.indexOf('REGISTERED_DRIVERS'));
if (lastImport < 0 || listEnd < 0)
  throw new Error('registered-drivers.ts: no import or no REGISTERED_DRIVERS list');
const withLine =
  registered.slice(0, afterImports) +
  importLine +
  registered.slice(afterImports, listEnd) +
  `  ${pascal}Driver,\n` +
  registered.slice(listEnd);

mkdirSync(folder);
writeFileSync(join(folder, `${pg}.catalogue.ts`), catalogue);
writeFileSync(join(folder, `${pg}-driver.ts`), driver);
writeFileSync(REGISTERED, withLine);
console.log(`Wrote src/payments/drivers/${pg}/${pg}.catalogue.ts and ${pg}-driver.ts; registered ${pascal}Driver.
Next (CONTRIBUTING.md "Add a gateway driver"): the provider's client and simulator, the driver's
methods, the catalogue's settings, the tests; then \`npm run format\` and \`npm run lint\`.`);
