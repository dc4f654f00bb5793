import { z } from "@hono/zod-openapi";

/** Polar's page size when none is asked for, and the most it answers (larger asks are clamped). */
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

/** A query parameter that may be given once or repeated (`?id=a&id=b`); always an array after parsing. */
export function repeatable<T extends z.ZodType<string>>(inner: T) {
  return z
    .union([inner, z.array(inner)])
    .transform((v): z.output<T>[] => (Array.isArray(v) ? v : [v]))
    .optional();
}

export const pageParams = {
  page: z.coerce.number().int().min(1).default(1).openapi({ description: "Page number, defaults to 1." }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_LIMIT)
    .transform((v) => Math.min(v, MAX_LIMIT))
    .openapi({ description: "Size of a page, defaults to 10. Maximum is 100." }),
};

/** `sorting`: repeatable `field` or `-field` (descending); default `-created_at`. */
export function sortingParam<const F extends string>(fields: readonly F[]) {
  const values = fields.flatMap((f) => [f, `-${f}`]) as [string, ...string[]];
  return z
    .union([z.enum(values), z.array(z.enum(values))])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional()
    .openapi({
      description:
        "Sorting criterion. Several criteria can be used simultaneously. Prefix with `-` for descending order.",
    });
}

export interface Sort<F extends string = string> {
  field: F;
  direction: "asc" | "desc";
}

export function parseSorting<F extends string>(sorting: string[] | undefined): Sort<F>[] {
  const list = sorting && sorting.length > 0 ? sorting : ["-created_at"];
  return list.map((s) =>
    s.startsWith("-") ? { field: s.slice(1) as F, direction: "desc" } : { field: s as F, direction: "asc" },
  );
}

export interface Page {
  page: number;
  limit: number;
}

export function offsetOf({ page, limit }: Page): number {
  return (page - 1) * limit;
}

export interface ListResult<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export function listResult<T>(items: T[], total: number, { limit }: Page): ListResult<T> {
  return { items, pagination: { total_count: total, max_page: Math.ceil(total / limit) } };
}

export function listResource<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      pagination: z
        .object({ total_count: z.number().int(), max_page: z.number().int() })
        .openapi("Pagination"),
    })
    .openapi(`ListResource${name}`);
}

/**
 * `metadata[key]=value` filters from the query string (repeatable: any of the values matches).
 * They have dynamic names, so they are read here rather than declared in a route's schema.
 */
export function metadataFilter(url: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // No such parameter can be in a URL without the word or an escape (most lists): no parse.
  if (!url.includes("metadata") && !url.includes("%")) return out;
  for (const [name, value] of new URL(url).searchParams) {
    const m = /^metadata\[([^\]]+)\]$/.exec(name);
    if (!m?.[1]) continue;
    const key = m[1];
    out[key] = [...(out[key] ?? []), value];
  }
  return out;
}
