// Runs on PostgreSQL only: captcha checks in front of Better Auth's endpoints; nothing engine-specific.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { uniqueEmail } from "./support/users.js";

const PROVIDERS = ["cloudflare-turnstile", "google-recaptcha", "hcaptcha"] as const;
type Provider = (typeof PROVIDERS)[number];

const GOOD = "good-token";
const SECRET = "captcha-secret-of-the-test";

interface Received {
  provider: string;
  contentType: string;
  fields: Record<string, string>;
}

/**
 * A stand-in for each provider's siteverify API on loopback. It answers the way the real
 * services do: `{success, "error-codes"}`, plus `score` and `action` for reCAPTCHA v3 and
 * `hostname` for Turnstile. Tokens: GOOD passes, "low-score" passes with a reCAPTCHA v3 score
 * of 0.1, "verifier-down" makes it answer 500, anything else fails.
 */
async function startVerifier() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => {
      raw += chunk.toString();
    });
    req.on("end", () => {
      const contentType = req.headers["content-type"] ?? "";
      const fields: Record<string, string> = contentType.includes("json")
        ? (JSON.parse(raw || "{}") as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(raw));
      const provider = (req.url ?? "").split("/")[1] ?? "";
      received.push({ provider, contentType, fields });
      const token = fields.response;
      if (token === "verifier-down") {
        res.writeHead(500, { "content-type": "text/plain" }).end("down");
        return;
      }
      const ok = fields.secret === SECRET && (token === GOOD || token === "low-score");
      const answer: Record<string, unknown> = ok
        ? { success: true, challenge_ts: new Date().toISOString(), hostname: "localhost" }
        : { success: false, "error-codes": ["invalid-input-response"] };
      if (provider === "google-recaptcha" && ok) {
        answer.score = token === "low-score" ? 0.1 : 0.9;
        answer.action = "submit";
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    url: (provider: string) => `http://127.0.0.1:${port}/${provider}/siteverify`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Verifier = Awaited<ReturnType<typeof startVerifier>>;

const PASSWORD = "correct horse battery";

describe.each(PROVIDERS)("captcha with %s", (provider: Provider) => {
  let verifier: Verifier;
  let server: TestServer;
  let verified: { email: string; username: string };

  beforeAll(async () => {
    verifier = await startVerifier();
    server = await startTestServer({
      inProcess: true,
      env: {
        CAPTCHA_PROVIDER: provider,
        CAPTCHA_SECRET_KEY: SECRET,
        CAPTCHA_VERIFY_URL: verifier.url(provider),
        ...(provider === "hcaptcha" ? { CAPTCHA_SITE_KEY: "site-key-of-the-test" } : {}),
      },
    });
    // A verified user to sign in with.
    const email = uniqueEmail("captcha");
    const username = `cap${Date.now().toString(36)}`;
    const res = await new Client(server.url).post(
      "/api/auth/sign-up/email",
      { email, password: PASSWORD, name: "Captcha", username },
      { "x-captcha-response": GOOD },
    );
    expect(res.status).toBe(200);
    await server.sql(`update "user" set "emailVerified" = true where email = $1`, email);
    verified = { email, username };
  });
  afterAll(async () => {
    await server?.stop();
    await verifier?.close();
  });

  const missing = { code: "MISSING_RESPONSE", message: "Missing CAPTCHA response" };
  const failed = { code: "VERIFICATION_FAILED", message: "Captcha verification failed" };

  it("refuses sign-up without a captcha response, or with one the verifier rejects, and accepts a good one", async () => {
    const client = new Client(server.url);
    const email = uniqueEmail("signup");
    const body = { email, password: PASSWORD, name: "New" };

    const before = verifier.received.length;
    const none = await client.post("/api/auth/sign-up/email", body);
    expect(none.status).toBe(400);
    expect(none.body).toEqual(missing);
    // Refused before anyone was asked.
    expect(verifier.received.length).toBe(before);

    const bad = await client.post("/api/auth/sign-up/email", body, { "x-captcha-response": "forged-token" });
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual(failed);
    expect(await server.sql(`select id from "user" where email = $1`, email)).toEqual([]);

    const asked = verifier.received.at(-1)!;
    expect(asked.provider).toBe(provider);
    expect(asked.fields.secret).toBe(SECRET);
    expect(asked.fields.response).toBe("forged-token");
    expect(asked.fields.remoteip).toBe("127.0.0.1");
    expect(asked.contentType).toContain(
      provider === "cloudflare-turnstile" ? "application/json" : "application/x-www-form-urlencoded",
    );
    if (provider === "hcaptcha") expect(asked.fields.sitekey).toBe("site-key-of-the-test");

    const good = await client.post("/api/auth/sign-up/email", body, { "x-captcha-response": GOOD });
    expect(good.status).toBe(200);
    expect(good.body.user.email).toBe(email);
    expect(verifier.received.at(-1)?.fields).toMatchObject({ secret: SECRET, response: GOOD });
    expect(await server.sql(`select id from "user" where email = $1`, email)).toHaveLength(1);
  });

  it("guards e-mail sign-in", async () => {
    const client = new Client(server.url);
    const body = { email: verified.email, password: PASSWORD };
    const none = await client.post("/api/auth/sign-in/email", body);
    expect(none.status).toBe(400);
    expect(none.body).toEqual(missing);
    const bad = await client.post("/api/auth/sign-in/email", body, { "x-captcha-response": "nope" });
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual(failed);
    expect(client.sessionCookie).toBeUndefined();
    const good = await client.post("/api/auth/sign-in/email", body, { "x-captcha-response": GOOD });
    expect(good.status).toBe(200);
    expect(client.sessionCookie).toBeDefined();
    // Endpoints outside the guarded list need no captcha.
    const session = await client.get("/api/auth/get-session");
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe(verified.email);
    expect((await client.post("/api/auth/sign-out")).status).toBe(200);
  });

  it("guards username sign-in", async () => {
    const client = new Client(server.url);
    const body = { username: verified.username, password: PASSWORD };
    const none = await client.post("/api/auth/sign-in/username", body);
    expect(none.status).toBe(400);
    expect(none.body).toEqual(missing);
    const bad = await client.post("/api/auth/sign-in/username", body, { "x-captcha-response": "nope" });
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual(failed);
    const good = await client.post("/api/auth/sign-in/username", body, { "x-captcha-response": GOOD });
    expect(good.status).toBe(200);
    expect(good.body.user.email).toBe(verified.email);
  });

  it("guards the password-reset request under both its names", async () => {
    const client = new Client(server.url);
    const body = { email: verified.email, redirectTo: "/reset" };
    for (const path of ["/api/auth/request-password-reset", "/api/auth/forget-password"]) {
      const none = await client.post(path, body);
      expect({ path, status: none.status, body: none.body }).toEqual({ path, status: 400, body: missing });
      const bad = await client.post(path, body, { "x-captcha-response": "nope" });
      expect({ path, status: bad.status, body: bad.body }).toEqual({ path, status: 403, body: failed });
      const good = await client.post(path, body, { "x-captcha-response": GOOD });
      expect({ path, status: good.status }).toEqual({ path, status: 200 });
      expect(good.body.status).toBe(true);
    }
  });

  it("fails closed when the verifier is down", async () => {
    const res = await new Client(server.url).post(
      "/api/auth/sign-in/email",
      { email: verified.email, password: PASSWORD },
      { "x-captcha-response": "verifier-down" },
    );
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: "UNKNOWN_ERROR", message: "Something went wrong" });
  });

  if (provider === "google-recaptcha") {
    it("refuses a reCAPTCHA v3 answer with a score below 0.5", async () => {
      const res = await new Client(server.url).post(
        "/api/auth/sign-in/email",
        { email: verified.email, password: PASSWORD },
        { "x-captcha-response": "low-score" },
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual(failed);
    });
  }
});

describe("without captcha configured", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("needs no captcha header to sign up, sign in or request a reset", async () => {
    const client = new Client(server.url);
    const email = uniqueEmail("nocaptcha");
    const signUp = await client.post("/api/auth/sign-up/email", { email, password: PASSWORD, name: "Plain" });
    expect(signUp.status).toBe(200);
    await server.sql(`update "user" set "emailVerified" = true where email = $1`, email);
    const signIn = await client.post("/api/auth/sign-in/email", { email, password: PASSWORD });
    expect(signIn.status).toBe(200);
    const reset = await client.post("/api/auth/request-password-reset", { email });
    expect(reset.status).toBe(200);
  });
});
