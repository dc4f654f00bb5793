import { randomUUID } from "node:crypto";
/**
 * The input rule both faces (`/v1` and `/api/auth`) apply before anything reads a request:
 * a bounded body, JSON of bounded depth whose top level is an object, and text that
 * PostgreSQL can store. Each face renders a refusal in its own error shape (Polar's 422 for
 * `/v1`, Better Auth's `{code, message}` for `/api/auth`); the rule itself lives only here.
 */

/** The largest request body either face reads. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The deepest nesting of JSON either face accepts; no resource nests deeper than a few levels. */
export const MAX_JSON_DEPTH = 32;

export type Loc = (string | number)[];

/** Why a request was refused at the edge, before any handler saw it. */
export type EdgeRefusal =
  /**
   * `cut`: the body was cut off partway (a chunked body past the limit), so the connection
   * cannot carry another request and the answer closes it. A body declared too large is refused
   * before any of it is read; the server then reads and discards the rest (@hono/node-server
   * drains it, up to 64 MiB or 500 ms) and the connection stays open, so a client still sending
   * gets its 413 instead of a broken pipe.
   */
  | { kind: "too_large"; limit: number; cut: boolean }
  | { kind: "invalid"; type: string; loc: Loc; msg: string; input: unknown };

export class EdgeError extends Error {
  constructor(readonly refusal: EdgeRefusal) {
    super(refusal.kind === "too_large" ? `body larger than ${refusal.limit} bytes` : refusal.msg);
    this.name = "EdgeError";
  }

  static invalid(type: string, loc: Loc, msg: string, input: unknown): EdgeError {
    return new EdgeError({ kind: "invalid", type, loc, msg, input });
  }
}

// A NUL, or a UTF-16 surrogate without its partner: PostgreSQL stores neither (text refuses
// NUL, jsonb refuses an unpaired \ud800 escape).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a text for storage, or null when nothing is. */
export function textProblem(text: string): string | null {
  if (text.includes("\u0000")) return "Text must not contain a NUL character (\\u0000).";
  if (LONE_SURROGATE.test(text)) return "Text must not contain an unpaired UTF-16 surrogate.";
  return null;
}

/**
 * Checks a parsed JSON value: nesting depth, and every string and object key for text
 * PostgreSQL cannot store. Iterative, so a hostile body cannot exhaust the stack.
 */
export function checkJsonValue(value: unknown, root: Loc): void {
  const stack: [unknown, Loc][] = [[value, root]];
  while (stack.length > 0) {
    const [node, loc] = stack.pop()!;
    if (typeof node === "string") {
      const problem = textProblem(node);
      if (problem) throw EdgeError.invalid("string_type", loc, problem, node);
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    // loc holds the root's entries, then one entry per level below it.
    if (loc.length - root.length >= MAX_JSON_DEPTH)
      throw EdgeError.invalid("json_invalid", root, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, null);
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((v, i) => [i, v])
      : Object.entries(node);
    for (const [key, inner] of entries) {
      if (typeof key === "string") {
        const problem = textProblem(key);
        if (problem) throw EdgeError.invalid("string_type", [...loc, key], `Key: ${problem}`, key);
      }
      stack.push([inner, [...loc, key]]);
    }
  }
}

/** Query names and values, and the path's segments (decoded), checked for text PostgreSQL refuses. */
export function checkUrl(url: URL): void {
  for (const [name, value] of url.searchParams) {
    const problem = textProblem(name) ?? textProblem(value);
    if (problem) throw EdgeError.invalid("string_type", ["query", name], problem, value);
  }
  for (const segment of url.pathname.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw EdgeError.invalid(
        "string_type",
        ["path"],
        "The path is not valid percent-encoded UTF-8.",
        segment,
      );
    }
    const problem = textProblem(decoded);
    if (problem) throw EdgeError.invalid("string_type", ["path"], problem, decoded);
  }
}

/**
 * Refuses a body whose declared length is over the limit, before anything reads it. Call it
 * before asking for `req.body`: @hono/node-server's request starts pulling the socket into a
 * web stream when its body is first asked for, and a socket held by that stream is not drained
 * after the 413 (the connection was then closed under the client after 500 ms).
 */
export function refuseDeclaredTooLarge(req: Request, limit = MAX_BODY_BYTES): void {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw new EdgeError({ kind: "too_large", limit, cut: false });
}

/**
 * Reads a body up to the limit; a longer one is refused before it is all in memory. A body of
 * a declared length is read whole (Node's parser delivers exactly that many bytes, and
 * @hono/node-server's request reads them straight from the socket: asking for `req.body`
 * instead builds a full WHATWG Request and a web stream over it, a tenth of a small POST's
 * CPU in a profile); one without (chunked) is read as a stream and cut off at the limit.
 */
export async function readBoundedBody(req: Request, limit = MAX_BODY_BYTES): Promise<string> {
  refuseDeclaredTooLarge(req, limit);
  const length = req.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length)) {
    const whole = Buffer.from(await req.arrayBuffer());
    if (whole.byteLength > limit) throw new EdgeError({ kind: "too_large", limit, cut: false });
    return whole.toString("utf8");
  }
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new EdgeError({ kind: "too_large", limit, cut: true });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The JSON value of a request's body, as `parseJsonBody` read it at the edge, by request. */
const parsedBodies = new WeakMap<Request, unknown>();

/** Keeps the body's parsed value for the request's route (see `parsedBodyOf`). */
export function rememberParsedBody(req: Request, value: unknown) {
  parsedBodies.set(req, value);
}

/**
 * The body's value as the edge parsed it, for a route that checks it itself (a hot path's
 * validator reads it instead of parsing the text again); undefined when the edge did not.
 * It is shared: read it, never modify it.
 */
export function parsedBodyOf(req: Request): unknown {
  return parsedBodies.get(req);
}

export const isJsonContentType = (req: Request) => /json/i.test(req.headers.get("content-type") ?? "");

/**
 * Parses a JSON request body and applies the rule: valid JSON, an object at the top level,
 * bounded depth, storable text. An empty body is `undefined` (the endpoint decides whether it
 * needs one).
 */
export function parseJsonBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw EdgeError.invalid("json_invalid", ["body"], "JSON decode error", {});
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw EdgeError.invalid(
      "model_attributes_type",
      ["body"],
      "Input should be a valid dictionary or object",
      parsed,
    );
  // Text the rule refuses can only come from an escape (`\u0000`, `\ud800`: JSON forbids a raw
  // NUL in a string) or a surrogate in the text itself; without any, only the depth is left to
  // check, which needs no path per value (a batch of events has thousands). Anything found, or
  // anything possible, takes the full check, which names the first problem.
  if (MAYBE_UNSTORABLE.test(text) || deeperThan(parsed, MAX_JSON_DEPTH)) checkJsonValue(parsed, ["body"]);
  return parsed as Record<string, unknown>;
}

/** An escape of NUL or of a surrogate, or a surrogate: text that may hold what PostgreSQL refuses. */
const MAYBE_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])|[\uD800-\uDFFF]/;

/** Whether a parsed JSON value nests objects or arrays `limit` levels below itself, or deeper. */
function deeperThan(value: object, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth >= limit) return true;
    if (Array.isArray(node)) for (const inner of node) stack.push([inner, depth + 1]);
    else for (const key in node) stack.push([(node as Record<string, unknown>)[key], depth + 1]);
  }
  return false;
}

/**
 * Logs an unexpected failure once, with a new request id, and returns the id: the answer
 * carries only the id (in `X-Request-Id` and its text), never the error itself.
 */
export function reportUnexpected(
  logger: { error(message: string, fields?: Record<string, unknown>): void },
  error: unknown,
  where: { method: string; path: string },
): string {
  const requestId = randomUUID();
  logger.error("unhandled error", { requestId, method: where.method, path: loggablePath(where.path), error });
  return requestId;
}

/**
 * A request's path as a log may hold it: a segment that is a secret (Polar's `polar_` prefixes:
 * a checkout's or checkout link's client secret, a customer session or access token sent where
 * an id goes) is cut to its prefix, so an error on `/v1/checkouts/client/{client_secret}` does
 * not put the secret in the logs.
 */
export function loggablePath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      const secret = /^(polar_[a-z]+_)./.exec(segment);
      return secret ? `${secret[1]}…` : segment;
    })
    .join("/");
}

export const internalErrorText = (requestId: string) =>
  `Something went wrong on our side (request id ${requestId}).`;
