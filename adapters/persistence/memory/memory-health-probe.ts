import type { HealthProbe } from '../../../core/shared/health-probe.js';

/** The `database` probe of the in-memory repositories: process memory always answers. */
export class MemoryHealthProbe implements HealthProbe {
  readonly name = 'database';

  async check(): Promise<void> {}
}
