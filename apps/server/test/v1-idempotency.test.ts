// Runs on both databases: parallel requests with one Idempotency-Key run once; a second waits (row locks).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sandboxCardToken } from "./support/v1.js";

/**
 * Idempotency-Key on POSTs of /v1: the first answer is kept 24 h per caller and key and
 * replayed for the same request; another request with the key is refused; concurrent
 * requests with one key run once.
 */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, [
    "discounts:write",
    "products:write",
    "organization_access_tokens:write",
    "webhooks:write",
    "customers:write",
    "customer_sessions:write",
  ]);
  otherToken = await createToken(other, ["discounts:write"]);
});
afterAll(() => server?.stop());

const D = "/v1/discounts/";
let n = 0;
const discount = (name = `D${++n}`) => ({
  type: "percentage",
  duration: "once",
  basis_points: 1000,
  name,
});
const keyed = (key: string) => ({ "idempotency-key": key });

async function discountsNamed(name: string): Promise<number> {
  const [row] = await server.sql<{ n: number }>(
    "select count(*)::int as n from kassa_discount where name = $1",
    name,
  );
  return row?.n ?? -1;
}

describe("Idempotency-Key", () => {
  it("replays the first answer for the same key and body: one discount", async () => {
    const body = discount();
    const first = await call(server, token, "POST", D, body, keyed("create-1"));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await call(server, token, "POST", D, body, keyed("create-1"));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/application\/json/);
    // The same body in camelCase is the same request once normalized.
    const camel = await call(
      server,
      token,
      "POST",
      D,
      { ...body, basisPoints: 1000, basis_points: undefined },
      keyed("create-1"),
    );
    expect(camel.status).toBe(201);
    expect(camel.body.id).toBe(first.body.id);
    expect(await discountsNamed(body.name)).toBe(1);
    // Without a key, every request runs.
    const plain = await call(server, token, "POST", D, { ...body, code: "PLAIN1" });
    expect(plain.status).toBe(201);
    expect(await discountsNamed(body.name)).toBe(2);
  });

  it("an answer carrying a secret shown once is never kept: the database holds no copy, a retry runs again", async () => {
    const customer = await call(server, token, "POST", "/v1/customers/", { email: "idem@example.com" });
    expect(customer.status).toBe(201);
    const cases: [string, unknown, (body: Record<string, unknown>) => string][] = [
      [
        `/v1/organization-access-tokens/?organization_id=${acme.organizationId}`,
        { comment: "ci", scopes: ["products:write"] },
        (b) => String(b.token),
      ],
      [
        "/v1/webhooks/endpoints",
        { url: "https://example.com/hooks", format: "raw", events: [] },
        (b) => String(b.secret),
      ],
      ["/v1/customer-sessions/", { customer_id: customer.body.id }, (b) => String(b.token)],
    ];
    for (const [path, body, secretOf] of cases) {
      const first = await call(server, token, "POST", path, body, keyed(`secret-${path}`));
      expect(first.status, `${path} ${JSON.stringify(first.body)}`).toBe(201);
      expect(first.headers.get("cache-control"), path).toBe("no-store");
      const secret = secretOf(first.body);
      expect(secret.length, path).toBeGreaterThan(16);
      const kept = await server.sql("select 1 from kassa_idempotency_key where key = $1", `secret-${path}`);
      expect(kept, path).toEqual([]);
      const stored = await server.sql(
        "select 1 from kassa_idempotency_key where strpos(coalesce(response_body, ''), $1) > 0",
        secret,
      );
      expect(stored, path).toEqual([]);
      // The retry runs again: a new secret, not the first one replayed.
      const again = await call(server, token, "POST", path, body, keyed(`secret-${path}`));
      expect(again.status, path).toBe(201);
      expect(again.headers.get("idempotent-replayed"), path).toBeNull();
      expect(secretOf(again.body), path).not.toBe(secret);
    }
  });

  it("a checkout's confirm carrying the buyer's portal session token is never kept either", async () => {
    const seller = await createToken(acme, ["products:write", "checkouts:write"]);
    const product = await call(server, seller, "POST", "/v1/products/", {
      name: "Kept nowhere",
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const checkout = await call(server, seller, "POST", "/v1/checkouts/", {
      products: [product.body.id],
      customer_email: "kept-nowhere@example.com",
    });
    expect(checkout.status).toBe(201);
    const confirmed = await call(
      server,
      seller,
      "POST",
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      { customer_billing_address: { country: "FR" }, confirmation_token_id: await sandboxCardToken(server) },
      keyed("confirm-secret"),
    );
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const secret = String(confirmed.body.customer_session_token);
    expect(secret).toMatch(/^polar_cst_/);
    expect(confirmed.headers.get("cache-control")).toBe("no-store");
    expect(await server.sql("select 1 from kassa_idempotency_key where key = $1", "confirm-secret")).toEqual(
      [],
    );
    const stored = await server.sql(
      "select 1 from kassa_idempotency_key where strpos(coalesce(response_body, ''), $1) > 0",
      secret,
    );
    expect(stored).toEqual([]);
  });

  it("a token of the organization without the route's scope never gets another token's kept answer", async () => {
    const body = discount();
    const first = await call(server, token, "POST", D, body, keyed("scoped-1"));
    expect(first.status).toBe(201);
    const productsOnly = await createToken(acme, ["products:write"]);
    // Without a key it is refused for its scope; with the first token's key, not answered
    // from the kept answer either.
    const plain = await call(server, productsOnly, "POST", D, body);
    expect(plain.status).toBe(403);
    const keyedAgain = await call(server, productsOnly, "POST", D, body, keyed("scoped-1"));
    expect(keyedAgain.status).toBe(403);
    expect(keyedAgain.body).toEqual(plain.body);
    expect(keyedAgain.headers.get("idempotent-replayed")).toBeNull();
    // A token holding the endpoint's scope gets the answer, as the organization's keys promise.
    const same = await createToken(acme, ["discounts:write"]);
    const replay = await call(server, same, "POST", D, body, keyed("scoped-1"));
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
    expect(await discountsNamed(body.name)).toBe(1);
  });

  it("the same key with another body or on another endpoint: 422 naming the header, nothing created", async () => {
    const body = discount();
    const first = await call(server, token, "POST", D, body, keyed("create-2"));
    expect(first.status).toBe(201);
    const changed = await call(server, token, "POST", D, { ...body, basis_points: 2000 }, keyed("create-2"));
    expect(changed.status).toBe(422);
    expect(changed.body.error).toBe("RequestValidationError");
    expect(changed.body.detail[0].loc).toEqual(["header", "idempotency-key"]);
    expect(changed.body.detail[0].input).toBe("create-2");
    const elsewhere = await call(
      server,
      token,
      "POST",
      "/v1/products/",
      { name: "P", prices: [{ amount_type: "free" }] },
      keyed("create-2"),
    );
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.detail[0].loc).toEqual(["header", "idempotency-key"]);
    expect(await discountsNamed(body.name)).toBe(1);
    const [products] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_product where name = 'P' and organization_id = $1",
      acme.organizationId,
    );
    expect(products?.n).toBe(0);
  });

  it("keys belong to their caller: another organization's same key runs on its own", async () => {
    const body = discount();
    const mine = await call(server, token, "POST", D, body, keyed("shared-key"));
    const theirs = await call(server, otherToken, "POST", D, body, keyed("shared-key"));
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.organization_id).toBe(other.organizationId);
    // Another token of the same organization shares the organization's keys.
    const second = await createToken(acme, ["discounts:write"]);
    const replay = await call(server, second, "POST", D, body, keyed("shared-key"));
    expect(replay.body.id).toBe(mine.body.id);
    // The dashboard member's keys are their own.
    const owner = await acme.owner.client.post(
      `${D}?organization_id=${acme.organizationId}`,
      body,
      keyed("shared-key"),
    );
    expect(owner.status).toBe(201);
    expect(owner.body.id).not.toBe(mine.body.id);
  });

  it("parallel requests with one key run once; every answer is the first one", async () => {
    const body = discount();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call(server, token, "POST", D, body, keyed("parallel-1"))),
    );
    for (const a of answers) {
      expect(a.status).toBe(201);
      expect(a.body.id).toBe(answers[0]?.body.id);
    }
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(5);
    expect(await discountsNamed(body.name)).toBe(1);
  });

  it("answers are kept for 4xx too (a refused request is refused again), not for 401/403", async () => {
    const taken = { ...discount(), code: "TAKEN1" };
    expect((await call(server, token, "POST", D, taken)).status).toBe(201);
    const again = { ...discount(), code: "TAKEN1" };
    const refused = await call(server, token, "POST", D, again, keyed("refused-1"));
    expect(refused.status).toBe(422);
    await server.sql("update kassa_discount set code = 'FREED1' where code = 'TAKEN1'");
    const replay = await call(server, token, "POST", D, again, keyed("refused-1"));
    expect(replay.status).toBe(422);
    expect(replay.body).toEqual(refused.body);
    expect(await discountsNamed(again.name)).toBe(0);

    const reader = await createToken(acme, ["products:read"]);
    const body = discount();
    const denied = await call(server, reader, "POST", D, body, keyed("scope-1"));
    expect(denied.status).toBe(403);
    const allowed = await call(server, token, "POST", D, body, keyed("scope-1"));
    expect(allowed.status).toBe(201);
  });

  it("a 5xx answer is not kept: the retry runs again", async () => {
    await server.sql(`create or replace function kassa_test_fail() returns trigger language plpgsql as $$
      begin raise exception 'boom'; end $$`);
    await server.sql(
      "create trigger kassa_test_fail before insert on kassa_discount for each row execute function kassa_test_fail()",
    );
    const body = discount();
    try {
      const failed = await call(server, token, "POST", D, body, keyed("flaky-1"));
      expect(failed.status).toBe(500);
    } finally {
      await server.sql("drop trigger kassa_test_fail on kassa_discount");
    }
    const rows = await server.sql("select key from kassa_idempotency_key where key = 'flaky-1'");
    expect(rows).toEqual([]);
    const retried = await call(server, token, "POST", D, body, keyed("flaky-1"));
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await discountsNamed(body.name)).toBe(1);
  });

  it("a key is kept 24 hours; once expired it runs again", async () => {
    const body = discount();
    const first = await call(server, token, "POST", D, body, keyed("day-1"));
    const [row] = await server.sql<{ hours: number }>(
      "select extract(epoch from expires_at - created_at) / 3600 as hours from kassa_idempotency_key where key = 'day-1'",
    );
    expect(Number(row?.hours)).toBe(24);
    await server.sql(
      "update kassa_idempotency_key set expires_at = now() - interval '1 second' where key = 'day-1'",
    );
    const later = await call(server, token, "POST", D, body, keyed("day-1"));
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
  });

  it("while the first request runs, a second one waits for its answer, or gets 409 after 10 s", async () => {
    const body = discount();
    // A finished request gives the fingerprint of this body; a copy under another key,
    // without an answer yet, stands for a first request still running.
    await call(server, token, "POST", D, body, keyed("probe-1"));
    const [probe] = await server.sql<{ fingerprint: string; scope: string }>(
      "select fingerprint, scope from kassa_idempotency_key where key = 'probe-1'",
    );
    const hold = async (key: string) =>
      server.sql(
        `insert into kassa_idempotency_key (scope, key, fingerprint, claim, locked_until, expires_at, created_at)
         values ($1, $2, $3, 'other-request', now() + interval '1 minute', now() + interval '1 day', now())`,
        probe?.scope,
        key,
        probe?.fingerprint,
      );

    await hold("slow-1");
    const waiting = call(server, token, "POST", D, body, keyed("slow-1"));
    await new Promise((r) => setTimeout(r, 1500));
    await server.sql(
      `update kassa_idempotency_key set response_status = 201, response_headers = '{"content-type":"application/json"}',
       response_body = '{"answered":"by the first request"}' where key = 'slow-1'`,
    );
    const answer = await waiting;
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ answered: "by the first request" });

    await hold("stuck-1");
    const started = Date.now();
    const stuck = await call(server, token, "POST", D, body, keyed("stuck-1"));
    expect(stuck.status).toBe(409);
    expect(stuck.body.error).toBe("IdempotencyKeyInUse");
    expect(stuck.headers.get("retry-after")).toBe("1");
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);

    // A holder whose lease lapsed (its process died) no longer blocks the key.
    await server.sql(
      "update kassa_idempotency_key set locked_until = now() - interval '1 second' where key = 'stuck-1'",
    );
    const resumed = await call(server, token, "POST", D, body, keyed("stuck-1"));
    expect(resumed.status).toBe(201);
    expect(await discountsNamed(body.name)).toBe(2);
  }, 60_000);

  it("refuses an empty, overlong or non-ASCII key with 422 naming the header", async () => {
    for (const key of [" ", "k".repeat(256), "clé-1"]) {
      const body = discount();
      const res = await call(server, token, "POST", D, body, keyed(key));
      expect(res.status, key).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["header", "idempotency-key"]);
      expect(await discountsNamed(body.name)).toBe(0);
    }
  });

  it("other methods ignore the key; an unauthenticated POST is refused as without it", async () => {
    const res = await call(server, token, "GET", D, undefined, keyed("get-1"));
    expect(res.status).toBe(200);
    const none = await call(server, undefined, "POST", D, discount(), keyed("anon-1"));
    expect(none.status).toBe(401);
    const rows = await server.sql("select key from kassa_idempotency_key where key in ('get-1', 'anon-1')");
    expect(rows).toEqual([]);
  });
});
