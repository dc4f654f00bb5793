import { CompiledQuery, type QueryExecutorProvider, type RawBuilder } from "kysely";

/**
 * SQL texts a module marks as hot: fixed text (as Kysely compiles it), run on a read path of
 * every request, whose result columns are listed (no `select *`). Each PostgreSQL database
 * runs them as named prepared statements from their first run (every other statement with
 * parameters is named from its second: db/pg-client.ts), parsed and planned once per
 * connection, as it does the texts given to `Database.prepare`, unless
 * `DATABASE_PREPARED_STATEMENTS=off`. Process-wide
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

/**
 * A hot statement whose text is compiled once: `build` makes it from its arguments (each one
 * a parameter of the statement, never a part of its text); the first call compiles it and marks
 * it hot, and every later call only puts its arguments where the first call's went. On a read
 * answered thousands of times a second, compiling the same text again each time (and hashing it
 * to find it hot) was a tenth of the request's CPU.
 */
export function hotQuery<A extends unknown[], R>(
  build: (...args: A) => RawBuilder<R>,
): (db: QueryExecutorProvider, ...args: A) => CompiledQuery<R> {
  let compiled: { sql: string; slots: number[] } | undefined;
  return (db, ...args) => {
    if (!compiled) {
      // Stand-ins, one per argument, found again among the compiled parameters.
      const probes = args.map(() => ({}));
      const query = build(...(probes as A)).compile(db);
      const slots = query.parameters.map((p) => probes.indexOf(p as object));
      if (slots.some((slot) => slot < 0))
        throw new Error("hotQuery: every parameter of the statement must be one of its arguments");
      compiled = { sql: query.sql, slots };
      markHot(query.sql);
    }
    const { sql, slots } = compiled;
    return CompiledQuery.raw(
      sql,
      slots.map((slot) => args[slot]),
    ) as CompiledQuery<R>;
  };
}
