import { z } from "zod";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";
import { CUSTOM_FIELD_TYPES, type CustomFieldType } from "./values.js";

const formProperties = {
  form_label: z.string().min(1).optional(),
  form_help_text: z.string().min(1).optional(),
  form_placeholder: z.string().min(1).optional(),
};

const boundsInOrder = (low: string, high: string) => (p: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const a = p[low];
  const b = p[high];
  if (typeof a === "number" && typeof b === "number" && a > b)
    ctx.addIssue({ code: "custom", path: [high], message: `Must be greater than or equal to ${low}` });
};

const TextProperties = z
  .object({
    ...formProperties,
    textarea: z.boolean().optional(),
    min_length: z.number().int().min(0).optional(),
    max_length: z.number().int().min(0).optional(),
  })
  .superRefine(boundsInOrder("min_length", "max_length"));
const NumberProperties = z
  .object({ ...formProperties, ge: z.number().int().optional(), le: z.number().int().optional() })
  .superRefine(boundsInOrder("ge", "le"));
const DateProperties = NumberProperties;
const CheckboxProperties = z.object(formProperties);
const SelectProperties = z.object({
  ...formProperties,
  options: z.array(z.object({ value: z.string().min(1), label: z.string().min(1) })).min(1),
});

export const CUSTOM_FIELD_PROPERTIES: Record<CustomFieldType, z.ZodType<Record<string, unknown>>> = {
  text: TextProperties,
  number: NumberProperties,
  date: DateProperties,
  checkbox: CheckboxProperties,
  select: SelectProperties,
};

const Slug = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z0-9_-]+$/, "Only lowercase letters, digits, dashes and underscores");

const common = {
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  id: z.string(),
  metadata: MetadataOutput,
  slug: z.string(),
  name: z.string(),
  organization_id: z.string(),
};

export const CustomField = z
  .discriminatedUnion("type", [
    z.object({ ...common, type: z.literal("text"), properties: TextProperties }),
    z.object({ ...common, type: z.literal("number"), properties: NumberProperties }),
    z.object({ ...common, type: z.literal("date"), properties: DateProperties }),
    z.object({ ...common, type: z.literal("checkbox"), properties: CheckboxProperties }),
    z.object({ ...common, type: z.literal("select"), properties: SelectProperties }),
  ])
  .meta({ id: "CustomField" });

const createCommon = {
  metadata: MetadataInput.optional(),
  slug: Slug,
  name: z.string().trim().min(1).max(256),
  organization_id: z.string().nullish(),
};

export const CustomFieldCreate = z
  .discriminatedUnion("type", [
    z.object({ ...createCommon, type: z.literal("text"), properties: TextProperties }),
    z.object({ ...createCommon, type: z.literal("number"), properties: NumberProperties }),
    z.object({ ...createCommon, type: z.literal("date"), properties: DateProperties }),
    z.object({ ...createCommon, type: z.literal("checkbox"), properties: CheckboxProperties }),
    z.object({ ...createCommon, type: z.literal("select"), properties: SelectProperties }),
  ])
  .meta({ id: "CustomFieldCreate" });

/** An update names the field's type (it cannot change) and may replace its properties. */
export const CustomFieldUpdate = z
  .object({
    metadata: MetadataInput.optional(),
    name: z.string().trim().min(1).max(256).nullish(),
    slug: Slug.nullish(),
    type: z.enum(CUSTOM_FIELD_TYPES).optional(),
    properties: z.record(z.string(), z.unknown()).nullish(),
  })
  .meta({ id: "CustomFieldUpdate" });

export type CustomFieldWire = z.output<typeof CustomField>;
export type CustomFieldCreateInput = z.output<typeof CustomFieldCreate>;
export type CustomFieldUpdateInput = z.output<typeof CustomFieldUpdate>;
