import type { FailpointName, Failpoints } from '../../core/shared/failpoints.js';

/**
 * What an armed failpoint does: `kill` sends SIGKILL to this very process (no handler, no flush,
 * no `finally`: exactly a crash or an OOM kill), or an errno code (`ENOSPC`, `EIO`, …) makes
 * `reach` reject with an error shaped like Node's own file-system errors.
 */
export type FailpointAction = 'kill' | { errno: string };

/** Options of {@link ProcessFailpoints}: the armed points and their action. */
export interface ProcessFailpointsOptions {
  armed: ReadonlyArray<{ name: FailpointName; action: FailpointAction }>;
  /** How the process kills itself; default `process.kill(process.pid, 'SIGKILL')`. Tests of this class pass their own. */
  kill?: () => void;
}

/**
 * {@link Failpoints} for the crash and fault tests (docs/reliability.md), armed by
 * `HANGAR_FAILPOINTS` (parsed in apps/server/config.ts). Unarmed points resolve at once, so the
 * cost in a normal run is one Map lookup per point reached.
 */
export class ProcessFailpoints implements Failpoints {
  private readonly actions: Map<FailpointName, FailpointAction>;
  private readonly kill: () => void;

  constructor(options: ProcessFailpointsOptions) {
    this.actions = new Map(options.armed.map((point) => [point.name, point.action]));
    this.kill = options.kill ?? (() => process.kill(process.pid, 'SIGKILL'));
  }

  /** @throws an Error with `code` set to the armed errno (e.g. `ENOSPC`) when that is the action */
  reach(name: FailpointName): Promise<void> {
    const action = this.actions.get(name);
    if (action === undefined) return Promise.resolve();
    if (action === 'kill') {
      this.kill();
      // SIGKILL is delivered asynchronously: never let the caller go on meanwhile.
      return new Promise<void>(() => {});
    }
    const error = new Error(`${action.errno}: injected at failpoint ${name}`) as NodeJS.ErrnoException;
    error.code = action.errno;
    return Promise.reject(error);
  }
}
