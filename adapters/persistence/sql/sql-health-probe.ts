import { type Kysely, sql } from 'kysely';
import type { HealthProbe } from '../../../core/shared/health-probe.js';
import type { HangarDatabase } from './schema.js';

/** The `database` probe of `/healthz`: runs `select 1`; rejects with the driver's error when the database does not answer. */
export class SqlHealthProbe implements HealthProbe {
  readonly name = 'database';

  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async check(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }
}
