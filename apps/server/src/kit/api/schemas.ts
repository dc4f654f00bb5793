import { z } from "@hono/zod-openapi";
import { isTimeZone } from "../time-zone.js";

/** The wire's datetimes are defined with the other shared wire pieces in `@kassa/contracts/v1`. */
export { DateTime, DateTimeInput } from "@kassa/contracts/v1";

export const IdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid4" }),
});

export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else names nothing (answered as not found, never a database error). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A boolean query parameter: `true`/`false` (also `1`/`0`). */
export const BooleanQuery = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1")
  .openapi({ type: "boolean" });

/** Polar's `timezone` of an export: an IANA name, UTC when absent. */
export const ExportTimeZone = z
  .string()
  .refine(isTimeZone, { error: (issue) => `'${String(issue.input)}' is not a valid IANA time zone` })
  .default("UTC")
  .openapi({ description: "Time zone used to render dates in the CSV." });
