// A mocha reporter for finding where a run's time goes: the dot reporter's output, plus the wall
// time of every test file (its top-level suites, hooks included) and its number of tests, written
// as JSON, slowest first, to the file given as `--reporter-option out=<file>` (default
// mocha-file-times.json). Serial runs only (`--no-parallel`): a parallel run interleaves files.
//   npx mocha --no-parallel --reporter ./scripts/mocha-file-times.cjs --reporter-option out=/tmp/times.json
const Mocha = require('mocha');
const fs = require('node:fs');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class FileTimes extends Mocha.reporters.Dot {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const seconds = new Map();
    const tests = new Map();
    const out = options.reporterOption?.out ?? 'mocha-file-times.json';
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.parent?.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      if (!started.has(suite)) return;
      const file = suite.file ?? '?';
      seconds.set(file, (seconds.get(file) ?? 0) + (Date.now() - started.get(suite)) / 1000);
    });
    const count = (test) => tests.set(test.file ?? '?', (tests.get(test.file ?? '?') ?? 0) + 1);
    runner.on(EVENT_TEST_PASS, count);
    runner.on(EVENT_TEST_FAIL, count);
    runner.on(EVENT_TEST_PENDING, count);
    runner.once(EVENT_RUN_END, () => {
      const rows = [...seconds].map(([file, s]) => ({ file, s: Math.round(s * 10) / 10, tests: tests.get(file) ?? 0 })).sort((a, b) => b.s - a.s);
      fs.writeFileSync(out, `${JSON.stringify(rows, null, 1)}\n`);
    });
  }
}

module.exports = FileTimes;
