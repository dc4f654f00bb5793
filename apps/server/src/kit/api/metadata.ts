import { z } from "@hono/zod-openapi";

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
  .openapi("MetadataInput", {
    description:
      "Key-value object allowing you to store additional information. Keys up to 40 characters, at most 50 pairs; values are strings (up to 500 characters), integers, floats or booleans.",
  });

export const MetadataOutput = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .openapi("MetadataOutputType");
