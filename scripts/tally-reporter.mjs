// The node:test reporter scripts/run-tests.mjs uses beside `spec`: the tests counted by outcome (as
// counting-reporter.mjs counts them) and how long each test file took, from the start of its
// process to its end (loading the app, hooks and tests; under --test-concurrency, while others ran
// beside it). Writes `{"counts": {…}, "files": [{"file": …, "ms": …}, …]}` as one JSON line to its
// destination when the run ends.
// A bundle (test-bundles.mjs) runs several files in one process: each file is then a suite at
// nesting 0 named after its source, and its time is that suite's (its hooks and tests).
import { count, noCounts } from './counting-reporter.mjs';
import { isBundle } from './test-bundles.mjs';

export default async function* tallyReporter(source) {
  const counts = noCounts();
  const files = [];
  for await (const event of source) {
    count(counts, event);
    if (event.type !== 'test:complete') continue;
    const { file, name, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    const ms = details?.duration_ms ?? 0;
    // The runner reports each file's own process as a test at nesting 0 named after the file.
    if (name === file) {
      if (!isBundle(file)) files.push({ file, ms });
    } else if (isBundle(file) && details?.type === 'suite') files.push({ file: name, ms });
  }
  yield `${JSON.stringify({ counts, files })}\n`;
}
