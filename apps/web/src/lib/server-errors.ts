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
 * Shows a server refusal next to the field it concerns (by the answer's stable `code`), in
 * words for people (`serverErrorMessage`); a refusal that concerns no field goes to the
 * form's `root.server`. Every form puts the server's refusals on its fields through here.
 */
export function applyServerError<T extends FieldValues>(
  error: ServerError,
  setError: UseFormSetError<T>,
  fieldByCode: Partial<Record<string, Path<T>>>,
): void {
  const field = error.code ? fieldByCode[error.code] : undefined;
  const message = serverErrorMessage(error);
  if (field && error.status !== 429) setError(field, { type: "server", message }, { shouldFocus: true });
  else setError("root.server", { type: "server", message });
}
