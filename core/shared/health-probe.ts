/** Port: one dependency that `/healthz` asks (database, blob store). */
export interface HealthProbe {
  /** Short name shown in the health report, e.g. `database`. */
  readonly name: string;
  /** Resolves when the dependency answers; rejects otherwise. Must finish within a few seconds. */
  check(): Promise<void>;
}
