import { z } from "zod";

/**
 * Pieces every `/v1` noun shares. The schemas carry their OpenAPI names and descriptions with
 * zod's own `.meta({ id, ... })`, which the server's OpenAPI generator reads as it reads
 * `.openapi(...)`; each `id` is given once (zod's global registry refuses a second).
 */

/** A datetime on the wire: ISO-8601 with an offset, as Polar writes it. */
export const DateTime = z.iso.datetime({ offset: true });

/** Input datetimes must carry an offset (a naive datetime is ambiguous). */
export const DateTimeInput = z.iso.datetime({ offset: true, message: "Input should have timezone info" });

export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_STRING_MAX = 500;

export type MetadataValue = string | number | boolean;
export type Metadata = Record<string, MetadataValue>;

/** Polar's metadata rules: at most 50 keys of 1..40 characters; string (<= 500), integer, float or boolean values. */
export const MetadataInput = z
  .record(
    z.string().min(1).max(METADATA_KEY_MAX),
    z.union([z.string().max(METADATA_STRING_MAX), z.number(), z.boolean()]),
  )
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
    message: `Metadata can have at most ${METADATA_MAX_KEYS} keys`,
  })
  .meta({
    id: "MetadataInput",
    description:
      "Key-value object allowing you to store additional information. Keys up to 40 characters, at most 50 pairs; values are strings (up to 500 characters), integers, floats or booleans.",
  });

export const MetadataOutput = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .meta({ id: "MetadataOutputType" });

/** One refused value of a 422: where (`loc`, e.g. `["body", "prices", 0, "price_amount"]`) and why. */
export const ValidationError = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    input: z.unknown(),
  })
  .meta({ id: "ValidationError" });

/** A 422: every refused value of the request. */
export const HTTPValidationError = z
  .object({ error: z.literal("RequestValidationError"), detail: z.array(ValidationError) })
  .meta({ id: "HTTPValidationError" });

/** A 401/403 of the bearer scheme (RFC 6750). */
export const OAuthError = z
  .object({ error: z.enum(["invalid_token", "insufficient_scope"]), error_description: z.string() })
  .meta({ id: "OAuthError" });

/** A page of a list: Polar's `ListResource`. */
export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}
