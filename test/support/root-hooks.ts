// Mocha root hooks (required by .mocharc.json and .mocharc.postgres.json).
import { killLeftoverServers } from './server-process.js';

/** After the last test: no server process a test left behind keeps the run from ending. */
export const mochaHooks = {
  afterAll(): void {
    const killed = killLeftoverServers();
    if (killed > 0) console.warn(`test run: killed ${killed} server process(es) a test left running`);
  },
};
