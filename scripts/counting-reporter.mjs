// A node:test reporter (scripts/run-tests.mjs and run-cluster-tests.mjs use it beside `spec`):
// counts the tests — not suites, not files — by outcome, from the runner's own events, and writes
// them as one JSON line to its destination when the run ends.
export default async function* countingReporter(source) {
  const counts = { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { details, skip, todo, file, name, nesting } = event.data;
    if (details?.type === 'suite') continue;
    // A file that failed to load (or crashed) is reported as a failed test named after the file.
    const isFile = nesting === 0 && file && name === file;
    if (isFile && event.type === 'test:pass') continue;
    if (skip) counts.skipped++;
    else if (todo) counts.todo++;
    else if (event.type === 'test:pass') counts.passed++;
    else if (details?.error?.failureType === 'cancelledByParent') counts.cancelled++;
    else counts.failed++;
  }
  yield `${JSON.stringify(counts)}\n`;
}
