// Mocha root hooks (required by .mocharc.json and .mocharc.postgres.json). In a parallel run
// (`--parallel`) mocha runs them in every worker, around each file.
import { checkNoInternalErrors } from './live-servers.js';
import { killLeftoverServers } from './server-process.js';

export const mochaHooks = {
  /** After each test: a test server that logged an internal error (a 500) fails the test that caused it. */
  afterEach(): void {
    checkNoInternalErrors();
  },
  /** After the last test (of each file, in a parallel run): no server process a test left behind keeps the run from ending. */
  afterAll(): void {
    const killed = killLeftoverServers();
    if (killed > 0) console.warn(`test run: killed ${killed} server process(es) a test left running`);
  },
};
