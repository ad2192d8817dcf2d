import type { HealthProbe } from './health.js';

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
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
        });
        try {
          await Promise.race([probe.check(), timeout]);
          return [probe.name, 'ok'] as const;
        } catch {
          return [probe.name, 'failing'] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return { ok: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
  }
}
