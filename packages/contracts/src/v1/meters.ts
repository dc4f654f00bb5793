import { z } from "zod";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";
import { CONJUNCTIONS, FILTER_OPERATORS, METER_UNITS } from "./values.js";

export const FilterClause = z
  .object({
    property: z.string().min(1).max(256),
    operator: z.enum(FILTER_OPERATORS),
    value: z.union([z.string(), z.number().int(), z.boolean()]),
  })
  .meta({ id: "FilterClause" });

export type FilterClauseValue = z.output<typeof FilterClause>;
export interface FilterValue {
  conjunction: (typeof CONJUNCTIONS)[number];
  clauses: (FilterClauseValue | FilterValue)[];
}

/** Nested clauses joined by `and` / `or` (a clause or another filter in each place). */
export const Filter: z.ZodType<FilterValue> = z
  .lazy(() =>
    z.object({
      conjunction: z.enum(CONJUNCTIONS),
      clauses: z.array(z.union([FilterClause, Filter])),
    }),
  )
  .meta({
    id: "Filter",
    type: "object",
    properties: {
      conjunction: { type: "string", enum: [...CONJUNCTIONS] },
      clauses: {
        type: "array",
        items: {
          anyOf: [{ $ref: "#/components/schemas/FilterClause" }, { $ref: "#/components/schemas/Filter" }],
        },
      },
    },
    required: ["conjunction", "clauses"],
  });

const propertyAggregation = <F extends string>(func: F) =>
  z.object({ func: z.literal(func), property: z.string().min(1).max(256) });

/** `count`, or `sum` / `max` / `min` / `avg` / `unique` over a property of the events. */
export const Aggregation = z
  .discriminatedUnion("func", [
    z.object({ func: z.literal("count") }),
    propertyAggregation("sum"),
    propertyAggregation("max"),
    propertyAggregation("min"),
    propertyAggregation("avg"),
    propertyAggregation("unique"),
  ])
  .meta({ id: "MeterAggregation" });

export type AggregationValue = z.output<typeof Aggregation>;

export const Meter = z
  .object({
    metadata: MetadataOutput,
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    name: z.string(),
    unit: z.enum(METER_UNITS),
    custom_label: z.string().nullable(),
    custom_multiplier: z.number().int().nullable(),
    filter: Filter,
    aggregation: Aggregation,
    organization_id: z.string(),
    archived_at: DateTime.nullable(),
    /** Kassa's own: units a customer may consume beyond its credits in a period (the check's hard cap). */
    hard_cap_units: z.number().nullable().optional(),
  })
  .meta({ id: "Meter" });

export const MeterCreate = z
  .object({
    metadata: MetadataInput.optional(),
    name: z.string().trim().min(3).max(256),
    unit: z.enum(METER_UNITS).default("scalar"),
    custom_label: z.string().max(64).nullish(),
    custom_multiplier: z.number().int().min(1).nullish(),
    filter: Filter,
    aggregation: Aggregation,
    organization_id: z.string().nullish(),
    hard_cap_units: z.number().min(0).nullish(),
  })
  .meta({ id: "MeterCreate" });

export const MeterUpdate = z
  .object({
    metadata: MetadataInput.optional(),
    name: z.string().trim().min(3).max(256).nullish(),
    unit: z.enum(METER_UNITS).nullish(),
    custom_label: z.string().max(64).nullish(),
    custom_multiplier: z.number().int().min(1).nullish(),
    filter: Filter.nullish(),
    aggregation: Aggregation.nullish(),
    is_archived: z.boolean().nullish(),
    hard_cap_units: z.number().min(0).nullish(),
  })
  .meta({ id: "MeterUpdate" });

export type MeterWire = z.output<typeof Meter>;
export type MeterCreateInput = z.output<typeof MeterCreate>;
export type MeterUpdateInput = z.output<typeof MeterUpdate>;
