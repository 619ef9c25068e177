// The layers of src/ as docs/architecture.md's "Layers" table lists them (lowest first), read by
// eslint.config.mjs (which enforces them) and scripts/folder-graph.mjs (which reports against them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/**
 * The folders of each layer, lowest first: the rows `| n | \`folder/\`, \`folder/\` | … |` of the
 * table under the "## Layers" heading. Throws when the table is missing, its layers are not
 * numbered 1, 2, 3…, or a folder of src/ is not in it (or listed twice, or no longer exists), so a
 * new folder cannot go unchecked.
 */
export function readLayers(root = ROOT) {
  const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Layers\n'));
  if (!section) throw new Error('docs/architecture.md has no "## Layers" section');
  const layers = [];
  for (const [, number, cell] of section.matchAll(/^\|\s*(\d+)\s*\|([^|]*)\|/gm)) {
    if (Number(number) !== layers.length + 1)
      throw new Error(`docs/architecture.md: layer ${number} is out of order`);
    layers.push([...cell.matchAll(/`([\w-]+)\/`/g)].map(([, folder]) => folder));
  }
  const listed = layers.flat();
  const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const unlisted = folders.filter((folder) => !listed.includes(folder));
  const gone = listed.filter((folder) => !folders.includes(folder));
  const twice = listed.filter((folder, i) => listed.indexOf(folder) !== i);
  if (unlisted.length + gone.length + twice.length > 0) {
    throw new Error(
      `docs/architecture.md's Layers table and src/ disagree: not listed ${unlisted.join(', ') || '-'}; ` +
        `not in src/ ${gone.join(', ') || '-'}; listed twice ${twice.join(', ') || '-'}`,
    );
  }
  return layers;
}

/** The modules directly in src/ (main, app.module…): the composition root, above every layer. */
export function rootModules(root = ROOT) {
  return readdirSync(join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => entry.name.replace(/(\.d)?\.ts$/, ''));
}
