// Runs on PostgreSQL only: serving the web app's build and /api/config; nothing engine-specific.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { MailCatcher } from "./support/smtp.js";

const INDEX = "<!doctype html><title>Kassa</title><div id=root></div>";
const CHECKOUT = "<!doctype html><title>Checkout</title><div id=root></div>";
const PORTAL = "<!doctype html><title>Customer portal</title><div id=root></div>";
const SCRIPT = `console.log("${"kassa ".repeat(400)}");`;

describe("the web app and its configuration", () => {
  let server: TestServer;
  let webDir: string;
  beforeAll(async () => {
    webDir = mkdtempSync(path.join(os.tmpdir(), "kassa-web-"));
    mkdirSync(path.join(webDir, "assets"));
    writeFileSync(path.join(webDir, "index.html"), INDEX);
    writeFileSync(path.join(webDir, "checkout.html"), CHECKOUT);
    writeFileSync(path.join(webDir, "portal.html"), PORTAL);
    writeFileSync(path.join(webDir, "assets", "index-AbC123.js"), SCRIPT);
    writeFileSync(path.join(webDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    server = await startTestServer({ env: { WEB_DIR: webDir } });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(webDir, { recursive: true, force: true });
  });

  it("GET /api/config answers the defaults the sign-in pages need", async () => {
    const res = await new Client(server.url).get("/api/config");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      passwordMinLength: 8,
      passwordMaxLength: 128,
      usernameMinLength: 3,
      usernameMaxLength: 30,
      socialProviders: [],
      captcha: null,
      devMailbox: true,
    });
  });

  it("serves index.html at / and at every client route, never cached", async () => {
    const client = new Client(server.url);
    for (const p of ["/", "/sign-in", "/reset-password?token=abc", "/dashboard/some/deep/page"]) {
      const res = await client.get(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type"), p).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control"), p).toBe("no-cache");
      expect(res.text, p).toBe(INDEX);
    }
  });

  it("serves checkout.html (the checkout page's own build) at /checkout/..., never cached", async () => {
    const client = new Client(server.url);
    for (const p of [
      "/checkout/polar_c_abc",
      "/checkout/polar_c_abc/confirmation?customer_session_token=x",
      "/subscription/0b6e7c1e-6f43-4a4e-9f5e-2b1a3c4d5e6f/payment-method?expires=1&signature=s",
    ]) {
      const res = await client.get(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type"), p).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control"), p).toBe("no-cache");
      expect(res.text, p).toBe(CHECKOUT);
    }
    // Not a checkout address: the app.
    for (const p of ["/checkout", "/checkouts/abc", "/subscription/abc"])
      expect((await client.get(p)).text, p).toBe(INDEX);
  });

  it("serves portal.html (the customer portal's own build) at /portal/{slug}..., never cached", async () => {
    const client = new Client(server.url);
    for (const p of ["/portal/acme", "/portal/acme/subscriptions", "/portal/acme?customer_session_token=x"]) {
      const res = await client.get(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("cache-control"), p).toBe("no-cache");
      expect(res.text, p).toBe(PORTAL);
    }
    expect((await client.get("/portal")).text).toBe(INDEX);
  });

  it("GET /api/checkout/config names the sandbox when Stripe is not configured", async () => {
    const res = await new Client(server.url).get("/api/checkout/config");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ processor: "sandbox", stripe_publishable_key: null });
  });

  it("serves hashed assets with a year-long immutable cache, gzip-compressed when asked", async () => {
    const plain = await fetch(`${server.url}/assets/index-AbC123.js`, {
      headers: { "accept-encoding": "identity" },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(SCRIPT);

    const gzipped = await fetch(`${server.url}/assets/index-AbC123.js`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(await gzipped.text()).toBe(SCRIPT); // fetch decompresses
  });

  it("serves other files of the build without the long cache", async () => {
    const res = await new Client(server.url).get("/favicon.svg");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toBe("no-cache");
  });

  it("answers 404 for a missing asset instead of the app", async () => {
    const res = await new Client(server.url).get("/assets/index-Old999.js");
    expect(res.status).toBe(404);
    expect(res.text).not.toContain("<div id=root>");
  });

  it("leaves /api/* and /v1/* to their own answers", async () => {
    const client = new Client(server.url);
    for (const p of ["/api", "/api/nothing-here", "/v1", "/v1/nothing-here/"]) {
      const res = await client.get(p);
      expect(res.status, p).toBe(404);
      expect(res.text, p).not.toContain("<div id=root>");
    }
    // A billing endpoint asks for credentials; the app's index.html is never the answer.
    const products = await client.get("/v1/products/");
    expect(products.status).toBe(401);
    expect(products.text).not.toContain("<div id=root>");
  });

  it("never serves a file outside the build", async () => {
    writeFileSync(path.join(path.dirname(webDir), "kassa-web-secret.txt"), "secret");
    const client = new Client(server.url);
    for (const p of [
      `/..%2f${path.basename(webDir)}-secret.txt`,
      "/%2e%2e/%2e%2e/etc/passwd",
      "/..%2F..%2Fetc%2Fpasswd",
    ]) {
      const res = await client.get(p);
      expect(res.text, p).not.toContain("secret");
      expect(res.text, p).not.toContain("root:");
    }
    rmSync(path.join(path.dirname(webDir), "kassa-web-secret.txt"), { force: true });
  });

  it("answers 404, not 500, for a path that is not valid percent-encoding", async () => {
    const res = await new Client(server.url).get("/assets/%E0%A4%A");
    expect(res.status).toBe(404);
  });
});

describe("the configuration with providers, captcha and SMTP, and no web build", () => {
  let server: TestServer;
  let smtp: MailCatcher;
  beforeAll(async () => {
    smtp = await new MailCatcher().start();
    server = await startTestServer({
      env: {
        WEB_DIR: path.join(os.tmpdir(), "kassa-web-does-not-exist"),
        SMTP_URL: smtp.url,
        PASSWORD_MIN_LENGTH: "12",
        PASSWORD_MAX_LENGTH: "64",
        USERNAME_MIN_LENGTH: "4",
        USERNAME_MAX_LENGTH: "20",
        GITHUB_CLIENT_ID: "gh-client-id",
        GITHUB_CLIENT_SECRET: "gh-client-secret-value",
        GOOGLE_CLIENT_ID: "google-client-id",
        GOOGLE_CLIENT_SECRET: "google-client-secret-value",
        CAPTCHA_PROVIDER: "cloudflare-turnstile",
        CAPTCHA_SECRET_KEY: "captcha-secret-value",
        CAPTCHA_SITE_KEY: "captcha-site-key",
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  it("GET /api/config reflects the configuration and carries no secret", async () => {
    const res = await new Client(server.url).get("/api/config");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      passwordMinLength: 12,
      passwordMaxLength: 64,
      usernameMinLength: 4,
      usernameMaxLength: 20,
      socialProviders: [
        { id: "github", name: "GitHub", kind: "social" },
        { id: "google", name: "Google", kind: "social" },
      ],
      captcha: { provider: "cloudflare-turnstile", siteKey: "captcha-site-key" },
      devMailbox: false,
    });
    for (const secret of ["gh-client-secret-value", "google-client-secret-value", "captcha-secret-value"]) {
      expect(res.text).not.toContain(secret);
    }
  });

  it("answers / with a short text saying to build the web app when there is no build", async () => {
    const res = await new Client(server.url).get("/sign-in");
    expect(res.status).toBe(503);
    expect(res.text).toContain("The Kassa web app is not built. Run `npm run build`");
    const ok = await new Client(server.url).get("/api/auth/ok");
    expect(ok.body).toEqual({ ok: true });
  });
});
