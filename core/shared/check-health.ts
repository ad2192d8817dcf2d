import { clearTimer, setTimer, type TimerHandle } from './web-globals.js';
import type { HealthProbe } from './health-probe.js';

/** Health of each dependency, for `GET /healthz`. */
export interface HealthReport {
  ok: boolean;
  checks: Record<string, 'ok' | 'failing'>;
}

/** Asks every probe at once; each gets `timeoutMs` (default 3000 ms) to answer. Never throws. */
export class CheckHealth {
  constructor(private readonly deps: { probes: readonly HealthProbe[]; timeoutMs?: number }) {}

  async execute(): Promise<HealthReport> {
    const timeoutMs = this.deps.timeoutMs ?? 3000;
    const results = await Promise.all(
      this.deps.probes.map(async (probe) => {
        let timer: TimerHandle;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimer(() => reject(new Error('timeout')), timeoutMs);
        });
        try {
          await Promise.race([probe.check(), timeout]);
          return [probe.name, 'ok'] as const;
        } catch {
          return [probe.name, 'failing'] as const;
        } finally {
          clearTimer(timer);
        }
      }),
    );
    return { ok: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
  }
}
