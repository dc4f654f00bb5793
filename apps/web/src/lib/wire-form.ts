import type { z } from "zod";
import { type FieldMap, fieldFor } from "./server-errors";

/**
 * A form's schema checked by the request's own schema (from `@kassa/contracts/v1`), so a rule
 * of the wire is written once. `form` is the fields as people type them (amounts in dollars,
 * metadata rows, empty strings for "none") and the few rules only the form has; `toWire` is the
 * one mapping from the form's values to the body; each issue of `wire` lands on its field by
 * `fields`, the same map the server's 422s land by (`applyServerError`). An issue of a value no
 * field shows goes to the form's root error.
 */
export function checkedAgainst<F extends z.ZodType, W extends z.ZodType>(
  form: F,
  wire: W,
  toWire: (values: z.output<F>) => z.input<W>,
  fields: FieldMap,
): F {
  return form.superRefine((values, ctx) => {
    const result = wire.safeParse(toWire(values));
    if (result.success) return;
    for (const issue of result.error.issues) {
      const path = issue.path.map(String).join(".");
      const field = fieldFor(fields, path);
      ctx.addIssue({
        code: "custom",
        message: field ? issue.message : `${path || "request"}: ${issue.message}`,
        path: field ? field.split(".") : ["root", "server"],
      });
    }
  });
}
