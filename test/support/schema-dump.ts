// What a migrated database's schema is, as text, so two ways of reaching a schema can be compared line by line.
import { type Kysely, sql } from 'kysely';

/**
 * The schema of a SQLite database: every row of `sqlite_master` (tables, indexes, triggers, the
 * FTS5 virtual table and its shadow tables), one line each (`type name tbl_name sql`), by name.
 */
export async function dumpSqliteSchema(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`
    select type, name, tbl_name, sql from sqlite_master order by name, type
  `.execute(db);
  return rows.map((row) => `${row.type} ${row.name} ${row.tbl_name} ${row.sql ?? ''}`);
}

/**
 * The schema of the current schema (search_path) of a Postgres database, one line each: relations
 * (tables, sequences) with their kind, columns (type, nullability, default, position), indexes
 * (pg_indexes.indexdef), constraints (pg_get_constraintdef), functions (pg_get_functiondef, those
 * of extensions left out), triggers (pg_get_triggerdef) and the extensions installed. The schema's
 * own name, and that of the schema holding pg_trgm, are written `<schema>` and `<pg_trgm>`, so the
 * dumps of two schemas compare.
 */
export async function dumpPostgresSchema(db: Kysely<any>): Promise<string[]> {
  const lines: string[] = [];
  const { rows: current } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = current[0].schema;
  const { rows: trigram } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'
  `.execute(db);
  const relations = await sql<{ name: string; kind: string }>`
    select c.relname as name, c.relkind as kind from pg_class c
    where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'v', 'm', 'S', 'p', 'f')
    order by c.relname
  `.execute(db);
  for (const row of relations.rows) lines.push(`relation ${row.name} ${row.kind}`);
  const columns = await sql<{
    table_name: string;
    column_name: string;
    ordinal_position: number;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
  }>`
    select table_name, column_name, ordinal_position, data_type, is_nullable, column_default from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position
  `.execute(db);
  for (const row of columns.rows) {
    lines.push(
      `column ${row.table_name}.${row.column_name} #${row.ordinal_position} ${row.data_type} ${row.is_nullable === 'YES' ? 'null' : 'not null'} default ${row.column_default ?? '-'}`,
    );
  }
  const indexes = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes where schemaname = current_schema() order by indexname
  `.execute(db);
  for (const row of indexes.rows) lines.push(`index ${row.indexname} ${row.indexdef}`);
  const constraints = await sql<{ table: string; name: string; definition: string }>`
    select c.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
    from pg_constraint k join pg_class c on c.oid = k.conrelid
    where c.relnamespace = current_schema()::regnamespace order by c.relname, k.conname
  `.execute(db);
  for (const row of constraints.rows) lines.push(`constraint ${row.table}.${row.name} ${row.definition}`);
  const functions = await sql<{ name: string; definition: string }>`
    select p.proname as name, pg_get_functiondef(p.oid) as definition from pg_proc p
    where p.pronamespace = current_schema()::regnamespace
      and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
    order by p.proname, pg_get_function_identity_arguments(p.oid)
  `.execute(db);
  for (const row of functions.rows) lines.push(`function ${row.name} ${row.definition}`);
  const triggers = await sql<{ name: string; definition: string }>`
    select t.tgname as name, pg_get_triggerdef(t.oid) as definition from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = current_schema()::regnamespace and not t.tgisinternal order by c.relname, t.tgname
  `.execute(db);
  for (const row of triggers.rows) lines.push(`trigger ${row.name} ${row.definition}`);
  const extensions = await sql<{ name: string }>`select extname as name from pg_extension order by extname`.execute(db);
  for (const row of extensions.rows) lines.push(`extension ${row.name}`);
  const trigramSchema = trigram[0]?.schema;
  return lines.map((line) => {
    let out = line;
    // The trigram schema first: it may be this very schema.
    if (trigramSchema !== undefined) out = out.split(`${trigramSchema}.gin_trgm_ops`).join('<pg_trgm>.gin_trgm_ops');
    return out.split(schema).join('<schema>');
  });
}
