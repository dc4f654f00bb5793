// Runs on both databases: database errors (SQLSTATE codes and their columns) as each engine's driver reports them.
/**
 * The error mapping of the edge (db/errors.ts, auth/edge.ts, kit/api/database-errors.ts) as
 * plain functions: which database errors mean bad input, and what a 500 says and logs.
 */
import { describe, expect, it } from "vitest";
import { authErrorAnswer } from "../src/auth/edge.js";
import { classifyDatabaseError } from "../src/db/errors.js";
import { databaseFaultAsApiError } from "../src/kit/api/database-errors.js";
import type { Logger } from "../src/kit/logger.js";

const pgError = (fields: Record<string, string>) => Object.assign(new Error("database error"), fields);

function recordingLogger() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const log = (message: string, fields?: Record<string, unknown>) =>
    lines.push({ message, ...(fields ? { fields } : {}) });
  const logger: Logger = { debug: log, info: log, warn: log, error: log };
  return { logger, lines };
}

describe("classifyDatabaseError", () => {
  it.each([
    [
      { code: "23505", detail: "Key (slug)=(acme) already exists.", table: "organization" },
      "taken",
      "slug",
      409,
    ],
    [
      { code: "23503", detail: 'Key (product_id)=(x) is not present in table "kassa_product".' },
      "invalid",
      "product_id",
      422,
    ],
    [
      { code: "23503", detail: 'Key (id)=(x) is still referenced from table "kassa_order".' },
      "in_use",
      "id",
      409,
    ],
    [{ code: "23502", column: "name" }, "invalid", "name", 422],
    [{ code: "23514", constraint: "amount_positive" }, "invalid", undefined, 422],
    [{ code: "22P02" }, "invalid", undefined, 422],
    [{ code: "22003" }, "invalid", undefined, 422],
    [{ code: "22008" }, "invalid", undefined, 422],
    [{ code: "22P05" }, "invalid", undefined, 422],
  ])("%o -> %s", (fields, kind, column, status) => {
    const fault = classifyDatabaseError(pgError(fields));
    expect(fault).toMatchObject({ kind, column });
    expect(databaseFaultAsApiError(fault!).status).toBe(status);
  });

  it.each([[{ code: "42601" }], [{ code: "57P01" }], [{ code: "08006" }], [{}], [{ code: "ECONNRESET" }]])(
    "%o is the server's own failure (not mapped)",
    (fields) => {
      expect(classifyDatabaseError(pgError(fields))).toBeNull();
    },
  );
});

describe("authErrorAnswer", () => {
  const req = new Request("http://localhost/api/auth/organization/create", { method: "POST" });

  it("a taken organization slug on create: the spec's answer for a duplicate", async () => {
    const { logger } = recordingLogger();
    const error = pgError({
      code: "23505",
      detail: "Key (slug)=(acme) already exists.",
      table: "organization",
    });
    const res = authErrorAnswer(error, req, "/organization/create", logger);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: "ORGANIZATION_ALREADY_EXISTS",
      message: "Organization already exists",
    });
  });

  it("anything else: a 500 that logs once with a request id and says nothing internal", async () => {
    const { logger, lines } = recordingLogger();
    const error = new TypeError("secret internals at /srv/kassa/src/x.ts:12");
    const res = authErrorAnswer(error, req, "/organization/create", logger);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("INTERNAL_SERVER_ERROR");
    expect(body.message).not.toContain("secret");
    const requestId = res.headers.get("x-request-id");
    expect(body.message).toContain(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({ requestId, path: "/api/auth/organization/create", error });
  });
});
