// Runs on PostgreSQL only: GitHub and Google redirects and id-token refusals; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";

/**
 * GitHub and Google need the internet to finish a sign-in; what Kassa controls is that each
 * is offered exactly when configured and sends the browser to the provider with the right
 * client id and callback.
 */
describe("GitHub and Google sign-in when configured", () => {
  let configured: TestServer;
  let bare: TestServer;
  beforeAll(async () => {
    [configured, bare] = await Promise.all([
      startTestServer({
        inProcess: true,
        env: {
          GITHUB_CLIENT_ID: "gh-client",
          GITHUB_CLIENT_SECRET: "gh-secret",
          GOOGLE_CLIENT_ID: "google-client.apps.example",
          GOOGLE_CLIENT_SECRET: "google-secret",
        },
      }),
      startTestServer({ inProcess: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([configured?.stop(), bare?.stop()]);
  });

  it("sends the browser to GitHub with the client id and Kassa's callback", async () => {
    const res = await new Client(configured.url).post("/api/auth/sign-in/social", {
      provider: "github",
      callbackURL: "/dashboard",
    });
    expect(res.status).toBe(200);
    expect(res.body.redirect).toBe(true);
    const url = new URL(res.body.url);
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(url.searchParams.get("client_id")).toBe("gh-client");
    expect(url.searchParams.get("redirect_uri")).toBe(`${configured.url}/api/auth/callback/github`);
    expect(url.searchParams.get("state")).toBeTruthy();
  });

  it("sends the browser to Google with the client id and Kassa's callback", async () => {
    const res = await new Client(configured.url).post("/api/auth/sign-in/social", { provider: "google" });
    expect(res.status).toBe(200);
    const url = new URL(res.body.url);
    expect(url.hostname).toBe("accounts.google.com");
    expect(url.searchParams.get("client_id")).toBe("google-client.apps.example");
    expect(url.searchParams.get("redirect_uri")).toBe(`${configured.url}/api/auth/callback/google`);
  });

  it("refuses a provider that is not configured", async () => {
    const res = await new Client(bare.url).post("/api/auth/sign-in/social", { provider: "github" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ message: "Provider not supported or not found" });
  });

  it("refuses an id token that does not verify", async () => {
    const res = await new Client(configured.url).post("/api/auth/sign-in/social", {
      provider: "google",
      idToken: { token: "not.a.token" },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: "INVALID_TOKEN", message: "invalid token" });
    const users = await configured.sql(`select count(*)::int as n from "user"`);
    expect(users[0]).toEqual({ n: 0 });
  });
});
