// Runs on both databases: how each engine answers ids that are not UUIDs, and the id columns' types.
/**
 * Regression: ids are UUIDs, and when they were stored in uuid columns any id that was not a
 * UUID made PostgreSQL fail the whole query, so admin, API-key and organization endpoints
 * answered 500. An id that is not a UUID names nothing: every endpoint answers not found.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

const AUTH = "/api/auth";

describe("ids that are not UUIDs", () => {
  let server: TestServer;
  let admin: TestUser;
  const adminEmail = uniqueEmail("admin");
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true, env: { ADMIN_EMAILS: adminEmail } });
    admin = await createUser(server, { email: adminEmail });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const cases: Array<[method: "GET" | "POST", path: string, body: unknown, status: number, message: string]> =
    [
      ["POST", "/admin/set-role", { userId: "abc", role: "admin" }, 404, "user not found"],
      ["POST", "/admin/ban-user", { userId: "abc" }, 404, "user not found"],
      ["GET", "/admin/get-user?id=abc", undefined, 404, "user not found"],
      ["POST", "/admin/impersonate-user", { userId: "abc" }, 404, "user not found"],
      ["POST", "/admin/remove-user", { userId: "abc" }, 404, "user not found"],
      ["POST", "/api-key/update", { keyId: "abc", name: "x" }, 404, "not found"],
      ["GET", "/api-key/get?id=abc", undefined, 404, "not found"],
      ["POST", "/api-key/delete", { keyId: "abc" }, 404, "not found"],
      ["GET", "/organization/get-invitation?id=abc", undefined, 400, "Invitation not found"],
      [
        "POST",
        "/organization/set-active",
        { organizationId: "abc" },
        403,
        "User is not a member of the organization",
      ],
    ];

  it.each(cases)("%s %s answers %i %s", async (method, path, body, status, message) => {
    const res = await admin.client.request(method, `${AUTH}${path}`, body);
    expect({ status: res.status, message: res.body?.message }).toEqual({ status, message });
  });

  it("stores Better Auth's ids as UUIDs in text columns", async () => {
    const [row] = await server.sql<{ data_type: string }>(
      `select data_type from information_schema.columns where table_name = 'user' and column_name = 'id'`,
    );
    expect(row?.data_type).toBe("text");
    expect(admin.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
