import { type Kysely, sql } from 'kysely';
import type { HangarDatabase } from './schema.js';

/**
 * Secrets every process sharing the database must agree on, in `service_secrets` (migration 0011):
 * the first process to keep one under a name wins, every other one reads what it kept. The table is
 * not part of {@link HangarDatabase} on purpose: the repositories never see it. `db copy` carries it
 * (copy-database.ts), since a copy is the same deployment on another database.
 */
export class SqlServiceSecrets {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  /**
   * The secret kept under `name`; when there is none yet, `candidate` is kept (`insert … on conflict
   * do nothing`, so of processes racing exactly one candidate is kept) and the kept one returned.
   * @param candidate.createdAt Unix ms
   * @throws the driver's error (outages as DATABASE_UNAVAILABLE)
   */
  async keep(name: string, candidate: { value: string; createdAt: number }): Promise<string> {
    await sql`insert into service_secrets (name, value, created_at) values (${name}, ${candidate.value}, ${candidate.createdAt}) on conflict (name) do nothing`.execute(
      this.db,
    );
    const { rows } = await sql<{ value: string }>`select value from service_secrets where name = ${name}`.execute(this.db);
    const kept = rows[0]?.value;
    if (kept === undefined) throw new Error(`service secret "${name}" was neither kept nor found`);
    return kept;
  }
}
