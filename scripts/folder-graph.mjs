#!/usr/bin/env node
// Prints the folder-level import graph of src/ (one line per folder: the src/ folders its files
// import, relative imports only, `import type` included) and the cycles between folders.
// A folder is the first path segment under src/ ("app" for the files directly in src/).
// Exits 1 when there is a cycle. Usage: node scripts/folder-graph.mjs [--edges]
// (--edges also lists each file-to-file import that crosses folders).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

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

const graph = new Map(); // folder -> Map(folder -> [file -> file])
for (const file of tsFiles(SRC)) {
  const from = folderOf(file);
  if (!graph.has(from)) graph.set(from, new Map());
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolve(dirname(file), match[1] ?? match[2]);
    if (relative(SRC, target).startsWith('..')) continue;
    const to = folderOf(target + '.ts');
    if (to === from) continue;
    const edges = graph.get(from);
    if (!edges.has(to)) edges.set(to, []);
    edges.get(to).push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
  }
}

const showEdges = process.argv.includes('--edges');
for (const [from, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`${from} -> ${[...edges.keys()].sort().join(', ') || '(nothing)'}`);
  if (showEdges) for (const list of edges.values()) for (const edge of list) console.log(`    ${edge}`);
}

// Strongly connected components (Tarjan): every component with more than one folder is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function visit(node) {
  state.set(node, { index, low: index, onStack: true });
  index++;
  stack.push(node);
  for (const next of graph.get(node)?.keys() ?? []) {
    if (!state.has(next)) {
      visit(next);
      state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
    } else if (state.get(next).onStack) {
      state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
    }
  }
  if (state.get(node).low === state.get(node).index) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const node of graph.keys()) if (!state.has(node)) visit(node);

console.log(cycles.length ? `\nCycles (${cycles.length}):` : '\nNo cycles.');
for (const cycle of cycles) console.log(`  ${cycle.join(' <-> ')}`);
process.exitCode = cycles.length ? 1 : 0;
