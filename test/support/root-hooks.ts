// Mocha root hooks (required by .mocharc.json and .mocharc.postgres.json). In a parallel run
// (`--parallel`) mocha runs them in every worker, around each file.
import { appendFileSync } from 'node:fs';
import { checkNoInternalErrors } from './live-servers.js';
import { childrenCpuSeconds } from './process-cpu.js';
import { killLeftoverServers } from './server-process.js';

/**
 * Where each file's wall and CPU time go when `HANGAR_TEST_TIMES` names a file: one JSON line per
 * test file in a parallel run (one for the whole run in a serial one, named after its first file), `{ file, pass, wallS, cpuS, childCpuS }` (seconds; `childCpuS` is the CPU of the processes
 * the file started and waited for, from Linux's /proc/self/stat). Works in parallel runs, where a
 * reporter only sees a file's events replayed after it ended. Summarise with `node scripts/test-times.mjs`.
 */
const timesFile = process.env.HANGAR_TEST_TIMES;
let fileStarted: { wall: number; cpu: NodeJS.CpuUsage; children: number } | undefined;

export const mochaHooks = {
  /** Before the first test (of each file, in a parallel run): notes the time when `HANGAR_TEST_TIMES` asks for it. */
  beforeAll(): void {
    if (timesFile) fileStarted = { wall: performance.now(), cpu: process.cpuUsage(), children: childrenCpuSeconds() };
  },
  /** After each test: a test server that logged an internal error (a 500) fails the test that caused it. */
  afterEach(): void {
    checkNoInternalErrors();
  },
  /** After the last test (of each file, in a parallel run): no server process a test left behind keeps the run from ending. */
  afterAll(this: Mocha.Context): void {
    const killed = killLeftoverServers();
    if (killed > 0) console.warn(`test run: killed ${killed} server process(es) a test left running`);
    if (timesFile && fileStarted) {
      const cpu = process.cpuUsage(fileStarted.cpu);
      const file = this.test?.parent?.suites[0]?.file ?? '?';
      const line = {
        file: file.replace(/^.*?dist\//, ''),
        pass: process.env.HANGAR_TEST_DB ?? 'sqlite',
        wallS: Math.round(performance.now() - fileStarted.wall) / 1000,
        cpuS: Math.round((cpu.user + cpu.system) / 1000) / 1000,
        childCpuS: Math.round((childrenCpuSeconds() - fileStarted.children) * 100) / 100,
      };
      appendFileSync(timesFile, `${JSON.stringify(line)}\n`);
    }
  },
};
