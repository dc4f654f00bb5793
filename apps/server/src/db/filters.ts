import { type RawBuilder, sql } from "kysely";

/** Selected beside a page's rows: the count of all rows matching, in the same query. */
export const totalOver = sql<string>`count(*) over ()`.as("__total");

/**
 * A page and its total from one query (`totalOver`). A page past the end has no row to carry
 * the total, so then (only) the count is asked separately.
 */
export async function pageWithTotal<T extends { __total: string | number }>(
  rows: T[],
  count: () => Promise<string | number | bigint>,
): Promise<{ rows: Omit<T, "__total">[]; total: number }> {
  const first = rows[0];
  const total = first ? Number(first.__total) : Number(await count());
  return { rows: rows.map(({ __total: _, ...row }) => row), total };
}

/**
 * `metadata[key]=value` filters as one SQL condition: every key must match, any of its values
 * will do. Values compare as text (`->>`), so `?metadata[n]=3` finds `{"n": 3}` and `{"n": "3"}`.
 */
export function metadataCondition(
  column: string,
  filters: Record<string, string[]>,
): RawBuilder<boolean> | undefined {
  const parts = Object.entries(filters)
    .filter(([, values]) => values.length > 0)
    .map(([key, values]) => sql`(${sql.ref(column)} ->> ${key}) in (${sql.join(values)})`);
  if (parts.length === 0) return undefined;
  return sql<boolean>`(${sql.join(parts, sql` and `)})`;
}

/** A case-insensitive substring match for `query`, with LIKE's wildcards taken literally. */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const escaped = text.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<boolean>`${sql.ref(column)} ilike ${`%${escaped}%`}`;
}
