// The in-process test servers that are running, and the check the root hooks make after each test.
import { AssertionError } from 'chai';

/** What the after-each check needs of a running test server. */
export interface LiveServer {
  /** Unexpected (500) errors the server logged, oldest first. */
  internalErrors: unknown[];
}

/** Running test servers and how many of their logged internal errors were already reported. */
const liveServers = new Map<LiveServer, number>();

/** Watches `server` from now on (startTestServer). */
export function addLiveServer(server: LiveServer): void {
  liveServers.set(server, 0);
}

/** Stops watching `server` (its stop()). */
export function removeLiveServer(server: LiveServer): void {
  liveServers.delete(server);
}

/**
 * Throws when a running test server logged an internal error (a 500) since the last check: a 500
 * that a test did not see through call() (a raw fetch, a stream) still fails the run, after the test
 * that caused it. Called after every test by the root hooks (root-hooks.ts), in serial and parallel runs.
 */
export function checkNoInternalErrors(): void {
  for (const [server, reported] of liveServers) {
    if (server.internalErrors.length > reported) {
      liveServers.set(server, server.internalErrors.length);
      throw new AssertionError(
        `the server logged ${server.internalErrors.length - reported} internal error(s) (500): ${JSON.stringify(server.internalErrors.slice(reported), (_, v) => (v instanceof Error ? v.stack : v)).slice(0, 1000)}`,
      );
    }
  }
}
