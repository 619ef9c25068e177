#!/usr/bin/env node
// Prints the folder-level import graph of src/ (for each folder, the src/ folders its files import:
// relative imports and re-exports, `import type` included, spec files left out), then the cycles
// between folders, the cycles between files, and the imports that go against docs/architecture.md's
// "Layers" table (which eslint.config.mjs enforces). A folder is the first path segment under src/;
// the files directly in src/ are "app". Exits 1 when there is a cycle or an import against the
// table. Usage: node scripts/folder-graph.mjs [--edges]  (--edges: each import that crosses folders)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { readLayers } from './layers.mjs';

const SRC = resolve(import.meta.dirname, '..', 'src');
const IMPORT =
  /^\s*(?:import|export)\s[^'";]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function tsFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

const folderOf = (file) => {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? 'app' : parts[0];
};

const files = new Map(); // file (relative to src/, no extension) -> Set(file)
const folders = new Map(); // folder -> Map(folder -> ["file -> file"])
for (const path of tsFiles(SRC)) {
  const file = relative(SRC, path).replace(/(\.d)?\.ts$/, '');
  const from = folderOf(path);
  files.set(file, new Set());
  if (!folders.has(from)) folders.set(from, new Map());
  for (const match of readFileSync(path, 'utf8').matchAll(IMPORT)) {
    const target = relative(SRC, resolve(dirname(path), match[1] ?? match[2]));
    if (target.startsWith('..')) continue;
    files.get(file).add(target);
    const to = folderOf(join(SRC, target));
    if (to === from) continue;
    const edges = folders.get(from);
    if (!edges.has(to)) edges.set(to, []);
    edges.get(to).push(`${file} -> ${target}`);
  }
}

/** Strongly connected components of more than one node (Tarjan): the cycles of `graph`. */
function cyclesOf(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const cycles = [];
  const visit = (node) => {
    const own = { index, low: index, onStack: true };
    state.set(node, own);
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!state.has(next)) {
        visit(next);
        own.low = Math.min(own.low, state.get(next).low);
      } else if (state.get(next).onStack) {
        own.low = Math.min(own.low, state.get(next).index);
      }
    }
    if (own.low !== own.index) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

const showEdges = process.argv.includes('--edges');
for (const [from, edges] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`${from} -> ${[...edges.keys()].sort().join(', ') || '(nothing)'}`);
  if (showEdges) for (const list of edges.values()) for (const edge of list) console.log(`    ${edge}`);
}

const folderCycles = cyclesOf(new Map([...folders].map(([from, edges]) => [from, [...edges.keys()]])));
const fileCycles = cyclesOf(files);
const layerOf = new Map(readLayers().flatMap((names, i) => names.map((name) => [name, i + 1])));
layerOf.set('app', Infinity);
const against = [...folders].flatMap(([from, edges]) =>
  [...edges]
    .filter(([to]) => layerOf.get(to) >= layerOf.get(from))
    .flatMap(([to, list]) =>
      list.map((edge) => `${edge}  (layer ${layerOf.get(from)} -> ${layerOf.get(to)})`),
    ),
);

const report = (title, lines) => {
  console.log(lines.length ? `\n${title} (${lines.length}):` : `\nNo ${title.toLowerCase()}.`);
  for (const line of lines) console.log(`  ${line}`);
};
report(
  'Folder cycles',
  folderCycles.map((cycle) => cycle.join(' <-> ')),
);
report(
  'File cycles',
  fileCycles.map((cycle) => cycle.join(' <-> ')),
);
report('Imports against the Layers table', against);
process.exitCode = folderCycles.length + fileCycles.length + against.length > 0 ? 1 : 0;
