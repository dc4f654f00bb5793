// Runs on PostgreSQL only: Better Auth's origin checks in the in-process harness; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { assertNoTestEnvironment, startInProcessServer } from "./support/in-process.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser } from "./support/users.js";

/**
 * The in-process harness (support/in-process.ts) runs the server in a vitest worker, where
 * vitest sets NODE_ENV=test and TEST=true and Better Auth would switch its origin and CSRF
 * checks off. These tests send the requests those checks refuse to an in-process server and to
 * a server in a child process (which never saw those variables): both refuse them alike. The
 * last block builds a server with TEST=true, as a worker has it, and shows the same request
 * accepted there, so the assertions above fail if the harness ever lets the checks go off.
 */

const EVIL = "https://evil.example";

interface Case {
  server: TestServer;
  user: TestUser;
}
const cases: Record<"in process" | "child process", Case> = {} as never;

beforeAll(async () => {
  const [inProcess, child] = await Promise.all([startInProcessServer(), startTestServer()]);
  cases["in process"] = { server: inProcess, user: await createUser(inProcess) };
  cases["child process"] = { server: child, user: await createUser(child) };
});
afterAll(async () => {
  await Promise.all(Object.values(cases).map((c) => c.server.stop()));
});

/** A sign-in from `origin` with the user's right password. */
const signIn = (c: Case, origin: string, extra: Record<string, unknown> = {}) =>
  new Client(c.server.url, origin).post("/api/auth/sign-in/email", {
    email: c.user.email,
    password: c.user.password,
    ...extra,
  });

it("the in-process server has no process and no test environment", async () => {
  const { server } = cases["in process"];
  expect(server.inProcess).toBe(true);
  expect("child" in server).toBe(false);
  expect(process.env.NODE_ENV).toBeUndefined();
  expect(process.env.TEST).toBeUndefined();
  await expect(assertNoTestEnvironment()).resolves.toBeUndefined();
  expect(cases["child process"].server.inProcess).toBe(false);
});

describe.each(["in process", "child process"] as const)("%s", (name) => {
  it("a sign-in from another origin is refused (403 INVALID_ORIGIN), one from the app's own accepted", async () => {
    const c = cases[name];
    const evil = await signIn(c, EVIL);
    expect(evil.status).toBe(403);
    expect(evil.body.code).toBe("INVALID_ORIGIN");
    expect(evil.headers.getSetCookie()).toEqual([]);

    const same = await signIn(c, c.server.url);
    expect(same.status).toBe(200);
    expect(same.body.user.email).toBe(c.user.email);
  });

  it("a sign-in with a callbackURL on another origin is refused (403 INVALID_CALLBACK_URL)", async () => {
    const c = cases[name];
    const res = await signIn(c, c.server.url, { callbackURL: `${EVIL}/steal` });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("INVALID_CALLBACK_URL");
  });

  it("a cookie-bearing POST from another origin, or with no origin at all, is refused", async () => {
    const { user, server } = cases[name];
    const fromEvil = await user.client.post("/api/auth/update-user", { name: "csrf" }, { origin: EVIL });
    expect(fromEvil.status).toBe(403);
    expect(fromEvil.body.code).toBe("INVALID_ORIGIN");

    // Node's fetch sends no Origin header unless told to; the client sends one, so take it out.
    const headers = {
      cookie: [...user.client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      "content-type": "application/json",
    };
    const noOrigin = await fetch(`${server.url}/api/auth/update-user`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "csrf" }),
    });
    expect(noOrigin.status).toBe(403);
    expect((await noOrigin.json()).code).toBe("MISSING_OR_NULL_ORIGIN");

    const same = await user.client.post("/api/auth/update-user", { name: "renamed" });
    expect(same.status).toBe(200);
    const [row] = await server.sql<{ name: string }>(`select name from "user" where id = $1`, user.id);
    expect(row?.name).toBe("renamed");
  });
});

describe("with TEST=true, as vitest's workers have it", () => {
  it("the harness refuses to start", async () => {
    process.env.TEST = "true";
    try {
      await expect(startInProcessServer()).rejects.toThrow(/NODE_ENV and TEST unset/);
    } finally {
      delete process.env.TEST;
    }
  });

  it("Better Auth lets the requests refused above through: the checks this file asserts are what TEST switches off", async () => {
    const server = await startInProcessServer({ unsafeBetterAuthTestMode: true });
    try {
      const user = await createUser(server);
      const c = { server, user };
      const evil = await signIn(c, EVIL);
      expect(evil.status).toBe(200);
      expect((await signIn(c, server.url, { callbackURL: `${EVIL}/steal` })).status).toBe(200);
      const fromEvil = await user.client.post("/api/auth/update-user", { name: "csrf" }, { origin: EVIL });
      expect(fromEvil.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
