/**
 * SQL texts a module marks as hot: fixed text (as Kysely compiles it), run on a read path of
 * every request, whose result columns are listed (no `select *`). Each PostgreSQL database
 * runs them as named prepared statements, parsed and planned once per connection, as it does
 * the texts given to `Database.prepare`, unless `DATABASE_PREPARED_STATEMENTS=off`. Process-wide
 * because the modules that compile them hold no `Database`; marking changes nothing on PGlite
 * (its driver prepares every statement) and nothing in the rows a statement gives.
 */
const hot = new Set<string>();

export function markHot(sqlText: string): void {
  hot.add(sqlText);
}

export function isHot(sqlText: string): boolean {
  return hot.has(sqlText);
}
