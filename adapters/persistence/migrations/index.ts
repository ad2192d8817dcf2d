import type { Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written.

/**
 * Every migration of the SQL databases, in the order they run (by name), as frozen files of this
 * folder (docs/migrations.md): each exports `sqlite(db)` and `postgres(db)` and imports nothing
 * from the application. A name is what Kysely records in `kysely_migration`: it never changes, and
 * numbers that were never released stay unused (0015, 0020, 0026–0028).
 *
 * To add one: write `NNNN_name.ts` next to this file and add ONE line at the end of the list.
 * Modules are loaded only when their migration runs (an up-to-date database loads none).
 * test/contracts/migration-files.test.ts checks that this list and the folder hold the same files.
 */
export const MIGRATIONS: readonly MigrationEntry[] = [
  ['0001_initial', () => import('./0001_initial.js')],
  ['0002_account_rules', () => import('./0002_account_rules.js')],
  ['0003_list_indexes', () => import('./0003_list_indexes.js')],
  ['0004_custom_domains', () => import('./0004_custom_domains.js')],
  ['0005_listing_speed', () => import('./0005_listing_speed.js')],
  ['0006_file_histogram', () => import('./0006_file_histogram.js')],
  ['0007_file_histogram_by_type', () => import('./0007_file_histogram_by_type.js')],
  ['0008_activity_log_totals', () => import('./0008_activity_log_totals.js')],
  ['0009_credential_purge_indexes', () => import('./0009_credential_purge_indexes.js')],
  ['0010_change_notifications', () => import('./0010_change_notifications.js')],
  ['0011_service_secrets', () => import('./0011_service_secrets.js')],
  ['0012_image_variants', () => import('./0012_image_variants.js')],
  ['0013_private_files', () => import('./0013_private_files.js')],
  ['0014_shares', () => import('./0014_shares.js')],
  ['0016_email_slots_per_purpose', () => import('./0016_email_slots_per_purpose.js')],
  ['0017_activity_actions_index', () => import('./0017_activity_actions_index.js')],
  ['0018_mail_outbox', () => import('./0018_mail_outbox.js')],
  ['0019_resumable_uploads', () => import('./0019_resumable_uploads.js')],
  ['0021_mfa', () => import('./0021_mfa.js')],
  ['0022_device_sessions', () => import('./0022_device_sessions.js')],
  ['0023_passkeys', () => import('./0023_passkeys.js')],
  ['0024_passkey_challenges', () => import('./0024_passkey_challenges.js')],
  ['0025_api_key_scopes', () => import('./0025_api_key_scopes.js')],
  ['0029_oidc', () => import('./0029_oidc.js')],
  ['0030_invites', () => import('./0030_invites.js')],
  ['0031_search_grams', () => import('./0031_search_grams.js')],
  ['0032_sqlite_file_search', () => import('./0032_sqlite_file_search.js')],
  ['0033_sqlite_file_search_pending', () => import('./0033_sqlite_file_search_pending.js')],
  ['0034_search_grams_plpgsql', () => import('./0034_search_grams_plpgsql.js')],
  ['0035_sqlite_covering_list_indexes', () => import('./0035_sqlite_covering_list_indexes.js')],
  ['0036_postgres_file_grams', () => import('./0036_postgres_file_grams.js')],
  ['0037_postgres_covering_list_index', () => import('./0037_postgres_covering_list_index.js')],
  ['0038_postgres_upload_claim_last', () => import('./0038_postgres_upload_claim_last.js')],
  ['0039_postgres_gram_days_by_type', () => import('./0039_postgres_gram_days_by_type.js')],
  ['0040_postgres_trigram_index_by_type', () => import('./0040_postgres_trigram_index_by_type.js')],
  ['0041_postgres_size_covering_index', () => import('./0041_postgres_size_covering_index.js')],
  ['0042_search_on_database_indexes', () => import('./0042_search_on_database_indexes.js')],
  ['0043_hardening', () => import('./0043_hardening.js')],
  ['0044_webhooks', () => import('./0044_webhooks.js')],
  ['0045_admin_console', () => import('./0045_admin_console.js')],
  ['0046_signed_uploads_and_media', () => import('./0046_signed_uploads_and_media.js')],
  ['0047_file_media', () => import('./0047_file_media.js')],
  ['0048_image_metadata', () => import('./0048_image_metadata.js')],
  ['0049_admin_second_factor_and_deletions', () => import('./0049_admin_second_factor_and_deletions.js')],
  ['0050_sqlite_covering_filter_indexes', () => import('./0050_sqlite_covering_filter_indexes.js')],
  ['0051_postgres_search_characters', () => import('./0051_postgres_search_characters.js')],
];

/** A migration's name and how to load its module. */
export type MigrationEntry = readonly [name: string, load: () => Promise<FrozenMigration>];

/** What a migration file exports: one function per dialect, each run inside the migration's transaction (Postgres). */
export interface FrozenMigration {
  sqlite(db: Kysely<any>): Promise<void>;
  postgres(db: Kysely<any>): Promise<void>;
}
