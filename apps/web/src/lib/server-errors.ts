import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import type { ServerError } from "./auth-client";
import { authMessage } from "./auth-messages";

/**
 * A refusal in words for people: the web app's sentence for its `code` (the wire keeps the
 * spec's message, see `auth-messages.ts`), else the server's message; and words for answers
 * that carry no message of their own (network failure, rate limit).
 */
export function serverErrorMessage(error: ServerError): string {
  if (error.status === 429) return "Too many attempts. Wait a minute, then try again.";
  const worded = authMessage(error.code);
  if (worded) return worded;
  if (error.message) return error.message;
  if (error.status === 0) return "The server could not be reached. Check your connection and try again.";
  return "Something went wrong on our side. Try again.";
}

/**
 * Where a refused value's path lands in a form: wire path (prefix) -> form field. A key names
 * one wire value and every value under it (`products` takes `products.0`), which land on the
 * mapped field; a key ending in `.*` keeps the rest of the path (`properties.*` -> `properties`
 * sends `properties.options.0.value` to that field of the form). The longest key wins.
 */
export type FieldMap = Readonly<Record<string, string>>;

export function fieldFor(map: FieldMap, path: string): string | undefined {
  let best: { key: string; field: string } | undefined;
  for (const [key, field] of Object.entries(map)) {
    const keep = key.endsWith(".*");
    const base = keep ? key.slice(0, -2) : key;
    if (path !== base && !path.startsWith(`${base}.`)) continue;
    if (best && best.key.length >= base.length) continue;
    best = { key: base, field: keep ? field + path.slice(base.length) : field };
  }
  return best?.field;
}

/** A refusal that names the refused values by path: a `/v1` 422 (see `V1Error.fieldErrors`). */
export interface FieldRefusal extends ServerError {
  fieldErrors?: () => Record<string, string>;
}

/** Whatever a call threw, as a refusal to show: a server's answer as it is, anything else in its words. */
export function refusalOf(error: unknown): FieldRefusal {
  if (typeof error === "object" && error !== null && typeof (error as ServerError).status === "number")
    return error as FieldRefusal;
  return { status: -1, message: error instanceof Error ? error.message : "Something went wrong." };
}

/**
 * Shows a server refusal next to the field it concerns, in words for people
 * (`serverErrorMessage`): by the answer's stable `code` (`fieldByCode`), or, for a refusal that
 * names its values by path (a `/v1` 422), each value at its field (`fieldByPath`, see
 * `FieldMap`). A refusal that concerns no field of the form goes to the form's `root.server`.
 * Every form puts the server's refusals on its fields through here.
 */
export function applyServerError<T extends FieldValues>(
  error: FieldRefusal,
  setError: UseFormSetError<T>,
  fieldByCode: Partial<Record<string, Path<T>>> = {},
  fieldByPath: FieldMap = {},
): void {
  const byPath = error.fieldErrors?.() ?? {};
  const paths = Object.keys(byPath);
  if (paths.length && error.status !== 429) {
    const elsewhere: string[] = [];
    let focused = false;
    for (const path of paths) {
      const message = byPath[path] as string;
      const field = fieldFor(fieldByPath, path) as Path<T> | undefined;
      if (!field) {
        elsewhere.push(path ? `${path}: ${message}` : message);
        continue;
      }
      setError(field, { type: "server", message }, { shouldFocus: !focused });
      focused = true;
    }
    if (elsewhere.length) setError("root.server", { type: "server", message: elsewhere.join(" ") });
    return;
  }
  const field = error.code ? fieldByCode[error.code] : undefined;
  const message = serverErrorMessage(error);
  if (field && error.status !== 429) setError(field, { type: "server", message }, { shouldFocus: true });
  else setError("root.server", { type: "server", message });
}
