import type { ValidationIssue } from "../../kit/api/errors.js";
import type { ProductWire } from "../products/index.js";

export type CustomFieldValue = string | number | boolean | null;
export type CustomFieldData = Record<string, CustomFieldValue>;

type Attached = ProductWire["attached_custom_fields"][number];

interface FieldDef {
  slug: string;
  type: string;
  properties: Record<string, unknown>;
}

const DATE = /^\d{4}-\d{2}-\d{2}(T.*)?$/;

function checkValue(field: FieldDef, value: CustomFieldValue): { type: string; msg: string } | null {
  const p = field.properties;
  switch (field.type) {
    case "text": {
      if (typeof value !== "string") return { type: "string_type", msg: "Input should be a valid string" };
      if (typeof p.min_length === "number" && value.length < p.min_length)
        return { type: "string_too_short", msg: `String should have at least ${p.min_length} characters` };
      if (typeof p.max_length === "number" && value.length > p.max_length)
        return { type: "string_too_long", msg: `String should have at most ${p.max_length} characters` };
      return null;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isInteger(value))
        return { type: "int_type", msg: "Input should be a valid integer" };
      if (typeof p.ge === "number" && value < p.ge)
        return { type: "greater_than_equal", msg: `Input should be greater than or equal to ${p.ge}` };
      if (typeof p.le === "number" && value > p.le)
        return { type: "less_than_equal", msg: `Input should be less than or equal to ${p.le}` };
      return null;
    }
    case "date": {
      if (typeof value !== "string" || !DATE.test(value) || Number.isNaN(Date.parse(value)))
        return { type: "date_type", msg: "Input should be a valid date" };
      return null;
    }
    case "checkbox":
      return typeof value === "boolean"
        ? null
        : { type: "bool_type", msg: "Input should be a valid boolean" };
    case "select": {
      const options = Array.isArray(p.options) ? (p.options as { value: string }[]) : [];
      if (typeof value !== "string" || !options.some((o) => o.value === value))
        return {
          type: "literal_error",
          msg: `Input should be ${options.map((o) => `'${o.value}'`).join(" or ")}`,
        };
      return null;
    }
    default:
      return null;
  }
}

/**
 * A buyer's answers to the product's custom fields: known slugs only, each of the field's type
 * and within its bounds. With `requireAll`, a required field left empty (or a required checkbox
 * left unticked) is an issue too. Returns the kept values and the issues (`loc` names the slug).
 */
export function validateCustomFieldData(
  attached: Attached[],
  data: Record<string, unknown> | undefined,
  opts: { requireAll: boolean },
): { data: CustomFieldData; issues: ValidationIssue[] } {
  const out: CustomFieldData = {};
  const issues: ValidationIssue[] = [];
  for (const a of attached) {
    const field = a.custom_field as unknown as FieldDef;
    const loc = ["body", "custom_field_data", field.slug];
    const present = data !== undefined && Object.hasOwn(data, field.slug);
    const value = present ? (data[field.slug] as CustomFieldValue) : undefined;
    const empty = value === undefined || value === null || value === "";
    if (empty) {
      if (opts.requireAll && a.required)
        issues.push({ type: "missing", loc, msg: "Field required", input: null });
      else if (present) out[field.slug] = null;
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) {
      issues.push({ ...problem, loc, input: value });
      continue;
    }
    if (opts.requireAll && a.required && field.type === "checkbox" && value !== true) {
      issues.push({ type: "literal_error", loc, msg: "Input should be True", input: value });
      continue;
    }
    out[field.slug] = value;
  }
  return { data: out, issues };
}
