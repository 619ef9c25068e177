// A node:test reporter (scripts/run-cluster-tests.mjs uses it beside `spec`; scripts/run-tests.mjs
// through tally-reporter.mjs): counts the tests — not suites, not files — by outcome, from the
// runner's own events, and writes them as one JSON line to its destination when the run ends.
export default async function* countingReporter(source) {
  const counts = noCounts();
  for await (const event of source) count(counts, event);
  yield `${JSON.stringify(counts)}\n`;
}

export const noCounts = () => ({ passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 });

/** Adds one runner event to `counts` (events that are not a test's outcome change nothing). */
export function count(counts, event) {
  if (event.type !== 'test:pass' && event.type !== 'test:fail') return;
  const { details, skip, todo, file, name, nesting } = event.data;
  if (details?.type === 'suite') return;
  // A file that failed to load (or crashed) is reported as a failed test named after the file.
  const isFile = nesting === 0 && file && name === file;
  if (isFile && event.type === 'test:pass') return;
  if (skip) counts.skipped++;
  else if (todo) counts.todo++;
  else if (event.type === 'test:pass') counts.passed++;
  else if (details?.error?.failureType === 'cancelledByParent') counts.cancelled++;
  else counts.failed++;
}
