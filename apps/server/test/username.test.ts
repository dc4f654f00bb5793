// Runs on PostgreSQL only: Better Auth's username plugin over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, uniqueEmail } from "./support/users.js";

let counter = 0;
/** A unique valid username: letters, digits, underscore, dot. */
function uniqueName(prefix = "u") {
  counter += 1;
  return `${prefix}${Date.now().toString(36).slice(-5)}${counter}`;
}

async function signUp(server: TestServer, body: Record<string, unknown>) {
  const client = new Client(server.url);
  const res = await client.post("/api/auth/sign-up/email", {
    email: uniqueEmail("uname"),
    password: "correct horse battery",
    name: "Someone",
    ...body,
  });
  return { client, res };
}

describe("username", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("stores the username lowercase and keeps the given spelling as displayUsername", async () => {
    const given = `Ada.Love_${uniqueName("X")}`;
    const { res } = await signUp(server, { username: given });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username: given.toLowerCase(), displayUsername: given });
    const [row] = await server.sql(
      `select username, "displayUsername" from "user" where id = $1`,
      res.body.user.id,
    );
    expect(row).toEqual({ username: given.toLowerCase(), displayUsername: given });
  });

  it("keeps an explicit displayUsername", async () => {
    const username = uniqueName("disp");
    const { res } = await signUp(server, { username, displayUsername: "The Display Name" });
    expect(res.status).toBe(200);
    const [row] = await server.sql(
      `select username, "displayUsername" from "user" where id = $1`,
      res.body.user.id,
    );
    expect(row).toEqual({ username, displayUsername: "The Display Name" });
  });

  it("accepts letters, digits, underscore and dot, at 3 and at 30 characters", async () => {
    const suffix = Date.now().toString(36).slice(-4);
    for (const username of [`a.${suffix}_9`, "z9_".padEnd(3, "q"), `Mix_${suffix}.`.padEnd(30, "x")]) {
      const { res } = await signUp(server, { username });
      expect({ username, status: res.status, text: res.status === 200 ? "" : res.text }).toEqual({
        username,
        status: 200,
        text: "",
      });
      expect(res.body.user.username).toBe(username.toLowerCase());
    }
  });

  it("refuses a username already taken, compared case-insensitively", async () => {
    const username = uniqueName("taken");
    expect((await signUp(server, { username })).res.status).toBe(200);
    for (const again of [username, username.toUpperCase()]) {
      const { res } = await signUp(server, { username: again });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: "USERNAME_IS_ALREADY_TAKEN", message: "username is already taken" });
    }
    const rows = await server.sql(`select id from "user" where lower(username) = $1`, username);
    expect(rows).toHaveLength(1);
  });

  it("refuses a username that is too short, too long or has invalid characters", async () => {
    const cases: [string, string, string][] = [
      ["ab", "USERNAME_TOO_SHORT", "username is too short"],
      ["a".repeat(31), "USERNAME_TOO_LONG", "username is too long"],
      ["a-b", "INVALID_USERNAME", "username is invalid"],
      ["a b", "INVALID_USERNAME", "username is invalid"],
      ["josé", "INVALID_USERNAME", "username is invalid"],
      ["name@host", "INVALID_USERNAME", "username is invalid"],
    ];
    for (const [username, code, message] of cases) {
      const email = uniqueEmail("badname");
      const { res } = await signUp(server, { username, email });
      expect({ username, status: res.status, body: res.body }).toEqual({
        username,
        status: 400,
        body: { code, message },
      });
      expect(await server.sql(`select id from "user" where email = $1`, email)).toEqual([]);
    }
  });

  it("refuses changing to a taken username through update-user", async () => {
    const first = uniqueName("first");
    await createUser(server, { username: first });
    const second = await createUser(server, { username: uniqueName("second") });
    const res = await second.client.post("/api/auth/update-user", { username: first.toUpperCase() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: "USERNAME_IS_ALREADY_TAKEN", message: "username is already taken" });
    const tooShort = await second.client.post("/api/auth/update-user", { username: "no" });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body).toEqual({ code: "USERNAME_TOO_SHORT", message: "username is too short" });

    const fresh = uniqueName("Renamed");
    const ok = await second.client.post("/api/auth/update-user", { username: fresh });
    expect(ok.status).toBe(200);
    const [row] = await server.sql(`select username from "user" where id = $1`, second.id);
    expect(row?.username).toBe(fresh.toLowerCase());
  });

  it("signs in with the username, case-insensitively, answering {token, user}", async () => {
    const username = uniqueName("Signer");
    const user = await createUser(server, { username });
    for (const typed of [username, username.toUpperCase(), username.toLowerCase()]) {
      const client = new Client(server.url);
      const res = await client.post("/api/auth/sign-in/username", {
        username: typed,
        password: user.password,
      });
      expect(res.status).toBe(200);
      expect(typeof res.body.token).toBe("string");
      expect(res.body.user).toMatchObject({
        id: user.id,
        email: user.email,
        username: username.toLowerCase(),
      });
      const session = await client.get("/api/auth/get-session");
      expect(session.body.user.id).toBe(user.id);
      const [row] = await server.sql(`select "userId" from session where token = $1`, res.body.token);
      expect(row?.userId).toBe(user.id);
    }
  });

  it('answers "invalid username or password" for a wrong password or an unknown username', async () => {
    const username = uniqueName("wrong");
    const user = await createUser(server, { username });
    const client = new Client(server.url);
    for (const body of [
      { username, password: "not the password" },
      { username: uniqueName("nobody"), password: user.password },
    ]) {
      const res = await client.post("/api/auth/sign-in/username", body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        code: "INVALID_USERNAME_OR_PASSWORD",
        message: "invalid username or password",
      });
    }
    expect(client.sessionCookie).toBeUndefined();
  });

  it('answers 403 "email not verified" for an unverified user and resends the verification mail', async () => {
    const username = uniqueName("unverified");
    const email = uniqueEmail("unverified");
    const { res: signedUp } = await signUp(server, { username, email });
    expect(signedUp.status).toBe(200);
    const mails = async () =>
      (await new Client(server.url).get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).body.items;
    const before = (await mails()).length;
    expect(before).toBeGreaterThanOrEqual(1);

    const client = new Client(server.url);
    const res = await client.post("/api/auth/sign-in/username", {
      username,
      password: "correct horse battery",
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: "EMAIL_NOT_VERIFIED", message: "email not verified" });
    expect(client.sessionCookie).toBeUndefined();
    const after: Json[] = await mails();
    expect(after.length).toBe(before + 1);
    expect(after[0].links.some((l: string) => l.includes("/verify-email?token="))).toBe(true);
  });

  it("tells whether a username is available", async () => {
    const username = uniqueName("avail");
    await createUser(server, { username });
    const client = new Client(server.url);
    const taken = await client.post("/api/auth/is-username-available", { username: username.toUpperCase() });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ available: false });
    const free = await client.post("/api/auth/is-username-available", { username: uniqueName("free") });
    expect(free.body).toEqual({ available: true });
    const invalid = await client.post("/api/auth/is-username-available", { username: "a-b" });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ code: "INVALID_USERNAME", message: "username is invalid" });
  });
});

describe("username bounds from the environment", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      inProcess: true,
      env: { USERNAME_MIN_LENGTH: "5", USERNAME_MAX_LENGTH: "8" },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("applies USERNAME_MIN_LENGTH and USERNAME_MAX_LENGTH", async () => {
    const short = await signUp(server, { username: "abcd" });
    expect(short.res.status).toBe(400);
    expect(short.res.body).toEqual({ code: "USERNAME_TOO_SHORT", message: "username is too short" });
    const long = await signUp(server, { username: "abcdefghi" });
    expect(long.res.status).toBe(400);
    expect(long.res.body).toEqual({ code: "USERNAME_TOO_LONG", message: "username is too long" });
    for (const username of ["abcde", "abcdefgh"]) {
      const ok = await signUp(server, { username });
      expect(ok.res.status).toBe(200);
      expect(ok.res.body.user.username).toBe(username);
    }
  });
});
