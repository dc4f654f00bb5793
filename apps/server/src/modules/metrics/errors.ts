import { RequestValidationError } from "../../kit/api/errors.js";

/** Polar's answer for a range its interval may not span (or a start after the end). */
export function rangeTooLarge(input: unknown) {
  return RequestValidationError.field(
    ["query"],
    "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
    input,
  );
}

/** Polar's answer for slugs it does not know, sorted and comma-separated. */
export function invalidSlugs(invalid: string[], input: string[]) {
  return RequestValidationError.field(
    ["query", "metrics"],
    `Invalid metric slugs: ${invalid.join(", ")}`,
    input,
  );
}

/** pydantic-extra-types' `TimeZoneName` refusal. */
export function invalidTimeZone(input: string) {
  return RequestValidationError.field(["query", "timezone"], "Invalid timezone name.", input, "TimeZoneName");
}
