// The node:test reporter scripts/run-tests.mjs uses beside `spec`: the tests counted by outcome (as
// counting-reporter.mjs counts them) and how long each test file took, from the start of its
// process to its end (loading the app, hooks and tests; under --test-concurrency, while others ran
// beside it). Writes `{"counts": {…}, "files": [{"file": …, "ms": …}, …]}` as one JSON line to its
// destination when the run ends.
import { count, noCounts } from './counting-reporter.mjs';

export default async function* tallyReporter(source) {
  const counts = noCounts();
  const files = [];
  for await (const event of source) {
    count(counts, event);
    if (event.type !== 'test:complete') continue;
    const { file, name, nesting, details } = event.data;
    // The runner reports each file's own process as a test at nesting 0 named after the file.
    if (nesting === 0 && file && name === file) files.push({ file, ms: details?.duration_ms ?? 0 });
  }
  yield `${JSON.stringify({ counts, files })}\n`;
}
