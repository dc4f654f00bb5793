import { type RawBuilder, sql } from "kysely";
import type { AggregationValue, FilterClauseValue, FilterValue } from "./schemas.js";

/**
 * A meter's filter and aggregation compiled to SQL over the events table (`kassa_event`,
 * under the alias given): never evaluated row by row in JavaScript. Pure: no query is run.
 *
 * Polar's rules: `name`, `source` and `timestamp` (unix seconds) are the event's columns,
 * any other property a metadata key (a `metadata.` prefix is dropped; a key with dots is
 * looked up as written, then as a path into nested objects); `like` / `not_like` are substring matches on the text; a missing key or a value
 * of another JSON type than the clause's never matches (`ne` and `not_like` included); an
 * empty clause list matches everything.
 */

const COLUMN_TYPES = { name: "string", source: "string", timestamp: "number" } as const;

function propertyPath(property: string): string[] {
  return property.replace(/^metadata\./, "").split(".");
}

/**
 * The JSON value at the property (jsonb), or SQL null when the key is missing. A property with
 * dots is first the key as written (`tokens.total`: event metadata is flat, string, number and
 * boolean values, and such keys are valid), then the nested path, for metadata stored as objects.
 */
export function metadataValue(alias: string, property: string): RawBuilder<unknown> {
  const key = property.replace(/^metadata\./, "");
  const path = propertyPath(property);
  const metadata = sql.ref(`${alias}.metadata`);
  return path.length === 1
    ? sql`(${metadata} -> ${path[0]})`
    : sql`coalesce(${metadata} -> ${key}, ${metadata} #> ${`{${path.map((p) => `"${p.replace(/["\\]/g, "\\$&")}"`).join(",")}}`}::text[])`;
}

const COMPARE = { eq: "=", ne: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;

function likePattern(value: string | number | boolean): string {
  const text = typeof value === "boolean" ? (value ? "true" : "false") : String(value);
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function compare(left: RawBuilder<unknown>, op: FilterClauseValue["operator"], right: RawBuilder<unknown>) {
  if (op === "like") return sql<boolean>`(${left} like ${right})`;
  if (op === "not_like") return sql<boolean>`(${left} not like ${right})`;
  return sql<boolean>`(${left} ${sql.raw(COMPARE[op])} ${right})`;
}

function clauseSql(alias: string, clause: FilterClauseValue): RawBuilder<boolean> {
  const { operator, value } = clause;
  const property = clause.property.replace(/^metadata\./, "");
  const like = operator === "like" || operator === "not_like";
  if (Object.hasOwn(COLUMN_TYPES, property)) {
    const kind = COLUMN_TYPES[property as keyof typeof COLUMN_TYPES];
    const column =
      property === "timestamp"
        ? sql`floor(extract(epoch from ${sql.ref(`${alias}.timestamp`)}))::bigint`
        : sql`${sql.ref(`${alias}.${property}`)}`;
    if (like) return compare(sql`(${column})::text`, operator, sql`${likePattern(value)}`);
    if (kind === "string" && typeof value !== "string") return sql<boolean>`false`;
    if (kind === "number" && typeof value !== "number") return sql<boolean>`false`;
    return compare(column, operator, sql`${value}`);
  }
  const json = metadataValue(alias, property);
  // Text of a string is its content (`->>` semantics); of a number or boolean, its JSON text.
  const text = sql`(${json} #>> '{}')`;
  if (like) return sql<boolean>`coalesce(${compare(text, operator, sql`${likePattern(value)}`)}, false)`;
  const type = typeof value === "string" ? "string" : typeof value === "number" ? "number" : "boolean";
  const typed =
    type === "string"
      ? compare(text, operator, sql`${value}::text`)
      : type === "number"
        ? compare(sql`(${json})::text::numeric`, operator, sql`${value}::numeric`)
        : compare(sql`(${json})::text::boolean`, operator, sql`${value}::boolean`);
  // CASE keeps the cast from running on a value of another type (it would raise).
  return sql<boolean>`(case when jsonb_typeof(${json}) = ${type} then ${typed} else false end)`;
}

/** The filter as one boolean SQL expression over the events under `alias`. */
export function filterSql(alias: string, filter: FilterValue): RawBuilder<boolean> {
  if (filter.clauses.length === 0) return sql<boolean>`true`;
  const parts = filter.clauses.map((c) => ("conjunction" in c ? filterSql(alias, c) : clauseSql(alias, c)));
  return sql<boolean>`(${sql.join(parts, sql.raw(filter.conjunction === "and" ? " and " : " or "))})`;
}

/**
 * What the aggregation reads from each event: `count` counts rows; `sum` / `max` / `min` /
 * `avg` read a JSON number (other events are left out, as `where`); `unique` reads the raw JSON
 * value (so 1 and "1" differ; a missing key is left out).
 */
export interface CompiledAggregation {
  func: AggregationValue["func"];
  /** The condition an event must meet to count (besides the filter). */
  where: RawBuilder<boolean>;
  /** The number read (sum/max/min/avg), or the JSON value (unique); for count, a constant 1. */
  value: RawBuilder<unknown>;
}

export function aggregationSql(alias: string, aggregation: AggregationValue): CompiledAggregation {
  if (aggregation.func === "count") return { func: "count", where: sql<boolean>`true`, value: sql`1` };
  const property = aggregation.property.replace(/^metadata\./, "");
  if (aggregation.func === "unique") {
    const json = metadataValue(alias, property);
    return { func: "unique", where: sql<boolean>`(${json} is not null)`, value: json };
  }
  if (property === "timestamp")
    return {
      func: aggregation.func,
      where: sql<boolean>`true`,
      value: sql`extract(epoch from ${sql.ref(`${alias}.timestamp`)})::numeric`,
    };
  if (property === "name" || property === "source")
    return { func: aggregation.func, where: sql<boolean>`false`, value: sql`null::numeric` };
  const json = metadataValue(alias, property);
  return {
    func: aggregation.func,
    where: sql<boolean>`(jsonb_typeof(${json}) = 'number')`,
    value: sql`(case when jsonb_typeof(${json}) = 'number' then (${json})::text::numeric end)`,
  };
}

/**
 * The SQL aggregate over a group: count, sum, max, min, avg, or count distinct, of `value` (an
 * aggregation's value, or a column of per-customer quantities).
 */
export function aggregateOver(
  func: AggregationValue["func"],
  value: RawBuilder<unknown>,
): RawBuilder<number> {
  switch (func) {
    case "count":
      return sql<number>`count(${value})`;
    case "unique":
      return sql<number>`count(distinct ${value})`;
    default:
      return sql<number>`${sql.raw(func)}(${value})`;
  }
}
