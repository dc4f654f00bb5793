import type { z } from "zod";
import type { ValidationIssue } from "./errors.js";

/** Where a validated value came from, in the words Polar's `loc` uses. */
export type Location = "body" | "query" | "path" | "header";

const TARGET_LOCATION: Record<string, Location> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
};

export function locationOf(target: string): Location {
  return TARGET_LOCATION[target] ?? "body";
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function issueType(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return input === undefined ? "missing" : `${issue.expected}_type`;
    case "too_small":
      return issue.origin === "string" || issue.origin === "array" ? "too_short" : "greater_than_equal";
    case "too_big":
      return issue.origin === "string" || issue.origin === "array" ? "too_long" : "less_than_equal";
    case "invalid_value":
      return issue.values.length > 1 ? "enum" : "literal_error";
    case "invalid_format":
      return `${issue.format}_parsing`;
    case "invalid_union":
      return "union_tag_invalid";
    case "unrecognized_keys":
      return "extra_forbidden";
    default:
      return "value_error";
  }
}

/**
 * A union that matched no option reports the issues of the closest option (the one with the
 * fewest issues), so `loc` names the field that is wrong rather than the whole union.
 */
function flattenUnions(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== "invalid_union" || !("errors" in issue) || issue.errors.length === 0) return [issue];
    const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0];
    if (!closest || closest.length === 0) return [issue];
    return flattenUnions(closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
  });
}

/** zod's issues as Polar's 422 `detail` entries, each naming the field by its `loc`. */
export function toValidationIssues(
  issues: readonly z.core.$ZodIssue[],
  location: Location,
  data: unknown,
): ValidationIssue[] {
  return flattenUnions(issues).map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const input = valueAt(data, issue.path);
    const missing = issue.code === "invalid_type" && input === undefined;
    return {
      type: issueType(issue, input),
      loc: [location, ...path],
      msg: missing ? "Field required" : issue.message,
      input: missing ? null : (input ?? null),
    };
  });
}
