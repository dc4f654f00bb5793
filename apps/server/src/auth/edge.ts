import { classifyDatabaseError, type InputFault } from "../db/errors.js";
import {
  checkUrl,
  EdgeError,
  internalErrorText,
  isJsonContentType,
  parseJsonBody,
  readBoundedBody,
  refuseDeclaredTooLarge,
  reportUnexpected,
} from "../kit/edge.js";
import type { Logger } from "../kit/logger.js";
import { specMessages } from "./messages.js";

/**
 * The edge rule (kit/edge.ts) on `/api/auth`, in Better Auth's error shape `{code, message}`:
 * applied before Better Auth parses anything, and the database errors Better Auth lets through
 * turned into the answer the spec gives for the same refusal.
 */

/**
 * The request to hand to Better Auth once the rule holds: the URL checked, and a body read
 * within the size bound (JSON: parsed and checked, then passed on as read). Throws EdgeError.
 */
export async function checkAuthRequest(raw: Request): Promise<Request> {
  checkUrl(new URL(raw.url));
  if (raw.method === "GET" || raw.method === "HEAD") return raw;
  refuseDeclaredTooLarge(raw);
  if (!raw.body) return raw;
  const text = await readBoundedBody(raw);
  if (isJsonContentType(raw)) parseJsonBody(text);
  const headers = new Headers(raw.headers);
  headers.delete("content-length");
  return new Request(raw.url, { method: raw.method, headers, body: text });
}

const json = (status: number, body: Record<string, string>, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });

const errorBody = (code: string, fallback: string) => ({ code, message: specMessages[code] ?? fallback });

/**
 * An edge refusal: 413 (closing the connection only when the body was cut off partway; see
 * `EdgeRefusal` in kit/edge.ts) or 422.
 */
export function authEdgeRefusal(error: EdgeError): Response {
  const r = error.refusal;
  if (r.kind === "too_large")
    return json(
      413,
      { code: "PAYLOAD_TOO_LARGE", message: `The request body is larger than ${r.limit} bytes.` },
      r.cut ? { Connection: "close" } : {},
    );
  return json(422, { code: "VALIDATION_ERROR", message: `[${r.loc.join(".")}] ${r.msg}` });
}

/**
 * A database error that means bad input, as Better Auth would have refused it had its own
 * check not lost a race: a taken organization slug, e-mail or username gets the spec's answer
 * (the same as the sequential case); anything else a 422 naming the column.
 */
function faultAnswer(fault: InputFault, path: string): Response {
  if (fault.kind === "taken") {
    if (fault.table === "organization" && fault.column === "slug")
      return path === "/organization/create"
        ? json(400, errorBody("ORGANIZATION_ALREADY_EXISTS", "Organization already exists"))
        : json(400, errorBody("ORGANIZATION_SLUG_ALREADY_TAKEN", "slug is taken"));
    if (fault.table === "user" && fault.column === "email")
      return json(422, errorBody("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "user already exists"));
    if (fault.table === "user" && fault.column === "username")
      return json(400, errorBody("USERNAME_IS_ALREADY_TAKEN", "username is already taken"));
  }
  const field = fault.column ? `[body.${fault.column}] ` : "";
  return json(422, { code: "VALIDATION_ERROR", message: `${field}${fault.message}` });
}

/**
 * What `/api/auth` answers for an error Better Auth did not turn into an answer itself
 * (`onAPIError.throw` lets them out): an edge refusal, bad input found by the database, or a
 * 500 logged once with a request id and nothing internal in its body.
 */
export function authErrorAnswer(error: unknown, req: Request, path: string, logger: Logger): Response {
  if (error instanceof EdgeError) return authEdgeRefusal(error);
  const fault = classifyDatabaseError(error);
  if (fault) return faultAnswer(fault, path);
  const requestId = reportUnexpected(logger, error, { method: req.method, path: new URL(req.url).pathname });
  return json(
    500,
    { code: "INTERNAL_SERVER_ERROR", message: internalErrorText(requestId) },
    { "X-Request-Id": requestId },
  );
}
