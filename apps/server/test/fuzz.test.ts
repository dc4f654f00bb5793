// Runs on both databases: malformed input reaches each engine's SQL, types and errors differently (the issue asks both).
/**
 * Property-based fuzzing of both faces with fast-check: every operation of the served OpenAPI
 * document, and the main `/api/auth` endpoints, driven with generated bad input (text with NUL
 * or unpaired surrogates, wrong types, nulls, empty strings, huge numbers, deep nesting, bodies
 * that are not objects, bad path ids) by an organization access token holding every scope.
 *
 * What must hold:
 * - no answer is a 5xx;
 * - a request carrying input that can never be valid (hostile) is refused (4xx);
 * - a write that was refused changed nothing: a checksum of the data tables is the same
 *   after it as before (a write that succeeded moves the baseline on).
 *
 * Bounded in time: a fixed seed, a few runs per operation. A failure prints the operation,
 * the seed and the counterexample (`fc.check` details) for each operation that failed.
 */
import { SCOPES } from "@kassa/contracts";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client, Json } from "./support/client.js";
import { TEST_DB } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser } from "./support/users.js";
import { call, createMerchant, type Merchant } from "./support/v1.js";

const SEED = 20261124;
const HOSTILE_RUNS = 4;
const AWKWARD_RUNS = 10;

let server: TestServer;
let merchant: Merchant;
let token: string;
/** A customer session (`polar_cst_`): the credential of the customer-portal operations. */
let customerToken: string | undefined;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked generically below.
let doc: any;
/** Ids of resources that exist, keyed by the path before their `{id}` (e.g. `/v1/products`). */
const seeds = new Map<string, string>();

/** Tables whose rows change on reads or in the background (sessions, counters, queues). */
const VOLATILE = new Set([
  "session",
  "rateLimit",
  "verification",
  "kassa_rate_limit",
  "kassa_idempotency_key",
  "kassa_job",
  "kassa_mail",
  "kassa_organization_access_token",
  "kassa_migration",
  "kassa_migration_lock",
  "kassa_schema_state",
  "kassa_session_epoch",
]);
let snapshotSql = "";

async function snapshot(): Promise<string> {
  const [row] = await server.sql<{ sum: string }>(snapshotSql);
  return row?.sum ?? "";
}

/**
 * Rows inserted, updated or deleted in the checksummed tables since the file began, counted by
 * row-level triggers this file adds to its own database (`fuzz_row_changes`). A write that
 * moved no row changed nothing: the checksum above, a pass over every table, is taken only
 * when the count moved (a counted change rolled back with its request is not counted).
 */
async function rowChanges(): Promise<string> {
  const [row] = await server.sql<{ n: string }>("select n::text as n from fuzz_row_changes");
  return row?.n ?? "";
}

interface Baseline {
  /** The checksum of the data tables. */
  baseline: string;
  /** `rowChanges()` when it was taken. */
  changes: string;
}

async function takeBaseline(): Promise<Baseline> {
  return { changes: await rowChanges(), baseline: await snapshot() };
}

beforeAll(async () => {
  // No job worker: nothing may change the data in the background between two checksums.
  server = await startTestServer({ env: { JOB_WORKER: "off" } });
  merchant = await createMerchant(server, "Fuzz");
  const res = await merchant.owner.client.post(
    `/v1/organization-access-tokens/?organization_id=${merchant.organizationId}`,
    { comment: "fuzz", scopes: [...SCOPES] },
  );
  if (res.status !== 201) throw new Error(`token: ${res.status} ${res.text}`);
  token = res.body.token;
  doc = (await call(server, undefined, "GET", "/v1/openapi.json")).body;

  const tables = await server.sql<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const parts = tables
    .map((t) => t.table_name)
    .filter((name) => !VOLATILE.has(name))
    .map(
      (name) =>
        `select '${name}' as t, md5(coalesce(string_agg(x::text, ',' order by x::text), '')) as h from "${name}" x`,
    );
  snapshotSql = `select md5(string_agg(t || ':' || h, '|' order by t)) as sum from (${parts.join(" union all ")}) s`;
  await server.sql("create table fuzz_row_changes (n bigint not null)");
  await server.sql("insert into fuzz_row_changes values (0)");
  await server.sql(
    "create function fuzz_count_row_change() returns trigger language plpgsql as $$ begin update fuzz_row_changes set n = n + 1; return null; end $$",
  );
  // One trigger per table, partitions included (a partitioned table's own trigger is cloned to
  // them too, so a row there may count twice: only whether the count moved matters).
  for (const [i, t] of tables.map((x) => x.table_name).entries())
    if (!VOLATILE.has(t))
      await server.sql(
        `create trigger fuzz_count_${i} after insert or update or delete on "${t}" for each row execute function fuzz_count_row_change()`,
      );

  // Resources that exist, so updates and actions on real ids are fuzzed too.
  const create = async (key: string, path: string, body: unknown) => {
    const r = await call(server, token, "POST", path, body);
    if (r.status === 201 || r.status === 200) seeds.set(key, r.body.id);
    return r.body as Json;
  };
  seeds.set("/v1/organizations", merchant.organizationId);
  const product = await create("/v1/products", "/v1/products/", {
    name: "Fuzz product",
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
  });
  await create("/v1/meters", "/v1/meters/", {
    name: "Fuzz meter",
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  await create("/v1/benefits", "/v1/benefits/", {
    type: "custom",
    description: "Fuzz benefit",
    properties: { note: "n" },
  });
  await create("/v1/custom-fields", "/v1/custom-fields/", {
    type: "text",
    slug: "fuzz",
    name: "Fuzz",
    properties: {},
  });
  await create("/v1/discounts", "/v1/discounts/", {
    type: "percentage",
    basis_points: 1000,
    duration: "once",
    name: "Fuzz",
  });
  const customer = await create("/v1/customers", "/v1/customers/", { email: "fuzz@example.com" });
  await create("/v1/webhooks/endpoints", "/v1/webhooks/endpoints", {
    url: "https://example.com/hook",
    format: "raw",
    events: ["order.created"],
  });
  if (product?.id) {
    await create("/v1/checkouts", "/v1/checkouts/", { products: [product.id] });
    await create("/v1/checkout-links", "/v1/checkout-links/", { products: [product.id] });
  }
  if (customer?.id) {
    const session = await create("/v1/customer-sessions", "/v1/customer-sessions/", {
      customer_id: customer.id,
    });
    customerToken = session?.token;
  }
  // The set-up's writes went through the triggers: a count that never moves would let every
  // refused write through unchecked.
  if (Number(await rowChanges()) < seeds.size)
    throw new Error("the row-change triggers counted too few writes");
}, 120_000);
afterAll(async () => {
  console.log("fuzz answers by status:", Object.fromEntries([...statuses].sort()));
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------
// Values

/** Text no request may carry: NUL, or a UTF-16 surrogate without its partner. */
const hostileText = fc.oneof(
  fc.string().map((s) => `${s}\u0000${s}`),
  fc.string().map((s) => `${s}\ud800`),
  fc.string().map((s) => `\udfff${s}`),
  fc.constant("a\u0000"),
);

/**
 * Nesting far deeper than any resource (the edge bound is 32), built only when sent: fast-check
 * prints values recursively, which a value thousands deep would overflow.
 */
class Deep {
  constructor(readonly levels: number) {}
  /** The JSON text, written directly (JSON.stringify of such a value would recurse as deep). */
  text(): string {
    return `${'{"a":['.repeat(this.levels / 2)}1${"]}".repeat(this.levels / 2)}`;
  }
  [fc.toStringMethod]() {
    return `<JSON ${this.levels} levels deep>`;
  }
}
const deep = fc.integer({ min: 20, max: 2500 }).map((n) => new Deep(n * 2));

/** JSON text of a body, with each Deep written in place. */
function bodyText(body: unknown): string {
  const deeps: Deep[] = [];
  const text = JSON.stringify(body, (_key, value) => {
    if (!(value instanceof Deep)) return value;
    deeps.push(value);
    return `\u0001deep${deeps.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001deep(\d+)\\u0001"/g, (_m, i: string) => deeps[Number(i)]!.text());
}

/** Percent-encodes a path segment; an unpaired surrogate as the three bytes it would take (WTF-8). */
function encodeSegment(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff)
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    else out += encodeURIComponent(ch);
  }
  return out;
}

const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 63),
  1e20,
  8.64e15 + 1,
  -1,
  0,
  0.5,
  Number.MAX_SAFE_INTEGER,
  2147483648,
);

/** Values that may or may not be valid where they land: the server must answer 2xx or 4xx. */
const awkward: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(""),
  fc.constant(null),
  hugeNumber,
  fc.constant("abc"),
  fc.uuid(),
  fc.constantFrom(
    "275760-09-13T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "2026-02-30T00:00:00Z",
    "1e400",
    "-1",
    "  ",
    "x".repeat(600),
  ),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
  fc.array(fc.constantFrom("", "abc", null, 1e308), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("a", "b", "key"), fc.constantFrom("", null, 1e308, "v"), { maxKeys: 3 }),
);

/** Ids in paths that name nothing valid. */
const badId = fc.oneof(
  fc.constantFrom("", "abc", "0", "-1", "1e400", "00000000-0000-0000-0000-000000000000", " "),
  fc.uuid(),
  hostileText,
);

// ---------------------------------------------------------------------------------------------
// The OpenAPI document

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  // biome-ignore lint/suspicious/noExplicitAny: a JSON Schema, walked generically.
  body: any | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema, walked generically.
function resolve(schema: any): any {
  if (schema?.$ref) {
    const name = String(schema.$ref).split("/").pop()!;
    return resolve(doc.components?.schemas?.[name]);
  }
  return schema;
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!["get", "post", "patch", "put", "delete"].includes(method)) continue;
      const params: Json[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
        body: resolve(op.requestBody?.content?.["application/json"]?.schema),
      });
    }
  }
  // Deletions last, so the resources the other operations update still exist; and the test
  // clock's advance after them: moving an organization's time expires its open checkouts on
  // the next read, which would look like a refused request changing data.
  const rank = (o: Operation) => (o.path === "/v1/test-clock/advance" ? 2 : o.method === "DELETE" ? 1 : 0);
  return ops.sort((a, b) => rank(a) - rank(b));
}

/** The property names of an object schema (through allOf / anyOf / oneOf), with their schemas. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema, walked generically.
function properties(schema: any): Map<string, any> {
  const out = new Map<string, Json>();
  const visit = (s: Json, depth: number) => {
    const r = resolve(s);
    if (!r || depth > 4) return;
    for (const [k, v] of Object.entries<Json>(r.properties ?? {})) out.set(k, v);
    for (const key of ["allOf", "anyOf", "oneOf"]) for (const inner of r[key] ?? []) visit(inner, depth + 1);
  };
  visit(schema, 0);
  return out;
}

/** A value shaped like the field's schema but at its edges (types right, values awkward). */
// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema, walked generically.
function edgeOf(schema: any): fc.Arbitrary<unknown> {
  const r = resolve(schema);
  // A union: the edges of each of its branches (e.g. a duration as text or as seconds).
  const branches: Json[] = (r?.anyOf ?? r?.oneOf ?? []).map(resolve).filter((b: Json) => b?.type !== "null");
  if (branches.length > 1) return fc.oneof(...branches.map((b) => edgeOf(b)));
  const type = r?.type ?? branches[0]?.type;
  if (r?.format === "date-time") return fc.constantFrom("275760-09-13T00:00:00Z", "0001-01-01T00:00:00Z", "");
  if (r?.format === "uuid") return fc.oneof(fc.constant(""), fc.uuid());
  if (type === "integer" || type === "number") return hugeNumber;
  if (type === "string") return fc.constantFrom("", " ", "x".repeat(600));
  if (type === "array") return fc.constantFrom([], [""], [null], [1e308]);
  if (type === "object") return fc.constantFrom({}, { "": "" }, { k: null });
  return awkward;
}

/** A value the field's schema accepts as far as its type goes (ids: those of real resources). */
// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema, walked generically.
function plausible(schema: any, name: string, depth = 0): unknown {
  const r = resolve(schema);
  if (!r || depth > 3) return null;
  const branch = (r.anyOf ?? r.oneOf)?.map(resolve).find((b: Json) => b?.type !== "null");
  if (branch) return plausible(branch, name, depth + 1);
  if (r.enum) return r.enum[0];
  if (r.const !== undefined) return r.const;
  if (r.format === "uuid" || name.endsWith("_id")) {
    const resource = [...seeds.entries()].find(([k]) =>
      k.includes(name.replace(/_ids?$/, "").replace(/_/g, "-")),
    );
    return resource?.[1] ?? seeds.values().next().value;
  }
  if (r.format === "date-time") return new Date(Date.now() + 86_400_000).toISOString();
  if (r.format === "uri" || name.endsWith("url")) return "https://example.com/x";
  if (r.format === "email" || name.endsWith("email")) return "fuzz@example.com";
  switch (r.type) {
    case "string":
      return "fuzz";
    case "integer":
    case "number":
      return r.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return r.items ? [plausible(r.items, name, depth + 1)] : [];
    case "object": {
      const out: Record<string, unknown> = {};
      for (const k of r.required ?? []) out[k] = plausible(r.properties?.[k], k, depth + 1);
      return out;
    }
    default:
      return null;
  }
}

function bodyArbitrary(op: Operation, mode: "hostile" | "awkward"): fc.Arbitrary<unknown> {
  const props = [...properties(op.body).entries()];
  if (mode === "awkward" && props.length > 0) {
    // A body close to valid (required fields, some optional ones), with one or two fields
    // at their edges: the kind of input that gets past validation and reaches the database.
    const names = props.map(([k]) => k);
    const required = new Set<string>(resolve(op.body)?.required ?? []);
    return fc
      .tuple(
        fc.subarray(names),
        fc.subarray(names, { minLength: 0, maxLength: Math.min(2, names.length) }),
        fc.array(fc.oneof(awkward, fc.constant(null), fc.constant("")), { minLength: 2, maxLength: 2 }),
        fc.array(fc.oneof(...props.map(([, sch]) => edgeOf(sch))), { minLength: 2, maxLength: 2 }),
        fc.boolean(),
      )
      .map(([optional, edged, odd, edge, typed]) => {
        const body: Record<string, unknown> = {};
        for (const [k, sch] of props)
          if (required.has(k) || optional.includes(k)) body[k] = plausible(sch, k);
        edged.forEach((k, i) => {
          body[k] = typed ? edge[i] : odd[i];
        });
        return body;
      });
  }
  const fields =
    props.length === 0
      ? fc.constant({} as Record<string, unknown>)
      : fc.record(Object.fromEntries(props.map(([k, s]) => [k, fc.oneof(awkward, edgeOf(s))])), {
          requiredKeys: [],
        });
  if (mode === "awkward") return fields;
  const names = props.length > 0 ? props.map(([k]) => k) : ["name"];
  return fc.oneof(
    // One field (known or not, at the top or nested in metadata) carries hostile text.
    fc
      .tuple(fields, fc.constantFrom(...names, "unknown_field"), hostileText)
      .map(([f, k, v]) => ({ ...f, [k]: v })),
    fc.tuple(fields, hostileText).map(([f, v]) => ({ ...f, metadata: { key: v } })),
    fc.tuple(fields, hostileText).map(([f, v]) => ({ ...f, metadata: { [v]: "value" } })),
    fc.tuple(fields, fc.constantFrom(...names), deep).map(([f, k, v]) => ({ ...f, [k]: v })),
    // Not an object at all.
    fc.constantFrom(null, 0, 1e308, "text", true, [], [{}]),
    deep,
  );
}

interface Sent {
  method: string;
  url: string;
  body: unknown;
}

function requestArbitrary(op: Operation, mode: "hostile" | "awkward"): fc.Arbitrary<Sent> {
  const seed = seeds.get(op.path.slice(0, op.path.indexOf("/{")));
  const idFor = mode === "awkward" && seed ? fc.oneof(fc.constant(seed), badId) : badId;
  const pathValues = fc.tuple(...op.pathParams.map(() => idFor));
  const query = fc.record(
    Object.fromEntries(
      op.queryParams.map((q) => [q, mode === "hostile" ? fc.oneof(hostileText, awkward) : awkward]),
    ),
    { requiredKeys: [] },
  );
  const hasBody = op.method !== "GET" && op.method !== "DELETE";
  const body = hasBody ? bodyArbitrary(op, mode) : fc.constant(undefined);
  return fc.tuple(pathValues, query, body).map(([ids, q, b]) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => {
      path = path.replace(`{${name}}`, encodeSegment(String(ids[i])));
    });
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) {
      if (v === undefined) continue;
      params.append(k, typeof v === "string" ? v : JSON.stringify(v));
    }
    return { method: op.method, url: `${path}?${params}`, body: b };
  });
}

// ---------------------------------------------------------------------------------------------
// Sending

/** How many answers of each status the run saw (printed, to show the fuzzing reached the handlers). */
const statuses = new Map<string, number>();

async function send(
  sent: Sent,
  auth: { token?: string; client?: Client },
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.client) {
    headers.origin = auth.client.origin;
    const cookie = [...auth.client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (cookie) headers.cookie = cookie;
  }
  if (sent.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.url}${sent.url}`, {
    method: sent.method,
    headers,
    body: sent.body === undefined ? undefined : bodyText(sent.body),
    redirect: "manual",
  });
  const key = `${res.status}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  return { status: res.status, text: (await res.text()).slice(0, 300) };
}

/**
 * The property for one request: no 5xx, a hostile request refused, and a refused write
 * changing nothing. `baseline` is the checksum before the request; it moves on after a
 * write that succeeded.
 */
function checker(auth: { token?: string; client?: Client }, mode: "hostile" | "awkward", state: Baseline) {
  return async (sent: Sent) => {
    const answer = await send(sent, auth);
    const where = `${sent.method} ${sent.url} -> ${answer.status} ${answer.text}`;
    if (answer.status >= 500) {
      // The server's log line for this answer (by its request id), to see the cause.
      const id = answer.text.match(/request id ([0-9a-f-]{36})/)?.[1];
      const logged = id
        ? server
            .output()
            .split("\n")
            .find((line) => line.includes(id))
        : undefined;
      throw new Error(`5xx: ${where}\n  server: ${logged?.slice(0, 600) ?? "(no log line)"}`);
    }
    if (sent.method === "GET") return;
    const changes = await rowChanges();
    if (mode === "hostile" && answer.status < 400) throw new Error(`hostile input accepted: ${where}`);
    if (changes === state.changes) return;
    state.changes = changes;
    const before = state.baseline;
    state.baseline = await snapshot();
    if (answer.status >= 400 && state.baseline !== before)
      throw new Error(`refused write changed data: ${where}`);
  };
}

async function fuzz(
  label: string,
  arbitrary: fc.Arbitrary<Sent>,
  runs: number,
  predicate: (sent: Sent) => Promise<void>,
): Promise<string | null> {
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), {
    seed: SEED,
    numRuns: runs,
    endOnFailure: true,
  });
  if (!details.failed) return null;
  const error =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `${label} (seed ${SEED}, path ${details.counterexamplePath}): ${error}`;
}

// ---------------------------------------------------------------------------------------------

describe(`fuzz (${TEST_DB})`, () => {
  it("every /v1 operation: no 5xx, hostile input refused, refused writes change nothing", async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(50);
    const state = await takeBaseline();
    const failures: string[] = [];
    const fuzzOperation = async (op: Operation) => {
      for (const mode of ["hostile", "awkward"] as const) {
        const failure = await fuzz(
          `${mode} ${op.method} ${op.path}`,
          requestArbitrary(op, mode),
          mode === "hostile" ? HOSTILE_RUNS : AWKWARD_RUNS,
          checker(
            { token: op.path.startsWith("/v1/customer-portal") ? (customerToken ?? token) : token },
            mode,
            state,
          ),
        );
        if (failure) failures.push(failure);
      }
    };
    // Writes one request at a time: each refused one is checked against the data before it.
    for (const op of ops.filter((o) => o.method !== "GET")) await fuzzOperation(op);
    // Then the reads, which are only asked for no 5xx (a read may write, e.g. a balance read
    // claiming events, so none runs before a write's check), four operations at a time: a
    // request's round trip through the test process, the server's and the database's is what a
    // loaded machine makes slow (3.7 ms alone, about 40 ms in CI beside the other lanes).
    const reads = ops.filter((o) => o.method === "GET");
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let op = reads.shift(); op; op = reads.shift()) await fuzzOperation(op);
      }),
    );
    expect(failures, failures.join("\n\n")).toEqual([]);
  }, 240_000);

  it("/api/auth: no 5xx, hostile input refused, refused writes change nothing", async () => {
    const user = await createUser(server);
    const A = "/api/auth";
    const endpoints: [method: "GET" | "POST", path: string, fields: string[]][] = [
      ["POST", "/sign-up/email", ["email", "password", "name", "username", "image", "callbackURL"]],
      ["POST", "/sign-in/email", ["email", "password", "rememberMe", "callbackURL"]],
      ["POST", "/sign-in/username", ["username", "password"]],
      ["POST", "/organization/create", ["name", "slug", "logo", "metadata", "keepCurrentActiveOrganization"]],
      ["POST", "/organization/update", ["data", "organizationId"]],
      ["POST", "/organization/check-slug", ["slug"]],
      ["POST", "/organization/set-active", ["organizationId", "organizationSlug"]],
      ["POST", "/organization/create-team", ["name", "organizationId"]],
      ["POST", "/organization/invite-member", ["email", "role", "organizationId", "teamId"]],
      ["POST", "/update-user", ["name", "image", "username"]],
      ["POST", "/change-email", ["newEmail", "callbackURL"]],
      ["POST", "/change-password", ["currentPassword", "newPassword", "revokeOtherSessions"]],
      ["POST", "/request-password-reset", ["email", "redirectTo"]],
      ["POST", "/api-key/create", ["name", "expiresIn", "prefix", "metadata"]],
      ["POST", "/api-key/update", ["keyId", "name", "enabled", "metadata"]],
      ["GET", "/organization/get-full-organization", ["organizationSlug", "organizationId"]],
      ["GET", "/organization/get-invitation", ["id"]],
      ["GET", "/api-key/get", ["id"]],
    ];
    const state = await takeBaseline();
    const failures: string[] = [];
    for (const [method, path, fields] of endpoints) {
      for (const mode of ["hostile", "awkward"] as const) {
        const op: Operation = {
          method,
          path,
          pathParams: [],
          queryParams: [],
          body: { properties: Object.fromEntries(fields.map((f) => [f, {}])) },
        };
        const arbitrary =
          method === "GET"
            ? fc
                .record(
                  Object.fromEntries(
                    fields.map((f) => [f, mode === "hostile" ? hostileText : fc.oneof(awkward, badId)]),
                  ),
                  { requiredKeys: mode === "hostile" ? [fields[0]!] : [] },
                )
                .map((q) => {
                  const params = new URLSearchParams();
                  for (const [k, v] of Object.entries(q))
                    if (v !== undefined) params.append(k, typeof v === "string" ? v : JSON.stringify(v));
                  return { method, url: `${A}${path}?${params}`, body: undefined };
                })
            : bodyArbitrary(op, mode).map((body) => ({ method, url: `${A}${path}`, body }));
        const failure = await fuzz(
          `${mode} ${method} ${A}${path}`,
          arbitrary,
          mode === "hostile" ? HOSTILE_RUNS * 2 : AWKWARD_RUNS * 2,
          checker({ client: user.client }, mode, state),
        );
        if (failure) failures.push(failure);
      }
    }
    expect(failures, failures.join("\n\n")).toEqual([]);
  }, 180_000);

  it("/api/auth: JSON nested thousands deep is refused before Better Auth parses it (422, not a stack overflow)", async () => {
    const body = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const nested = `{"email":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)},"password":"x"}`;
    for (const text of [body, nested]) {
      const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: text,
      });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ code: "VALIDATION_ERROR" });
    }
  });

  it("two parallel organization/create with one slug: one succeeds, the other gets the spec's refusal", async () => {
    const users = await Promise.all([createUser(server), createUser(server), createUser(server)]);
    for (let round = 0; round < 3; round++) {
      const slug = `race-${Date.now().toString(36)}-${round}`;
      const answers = await Promise.all(
        users.map((u) => u.client.post("/api/auth/organization/create", { name: "Race", slug })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200))
        expect({ status: a.status, message: a.body?.message }).toEqual({
          status: 400,
          message: "Organization already exists",
        });
    }
  });
});
