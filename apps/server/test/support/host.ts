/**
 * Test host: runs a real Kassa server in its own process (so vitest's NODE_ENV=test and
 * TEST never reach Better Auth) and answers the test process over IPC with what only the
 * server side can do: read the database and call Better Auth's server-only API.
 */
import { sql } from "kysely";
import { loadConfig } from "../../src/config.js";
import type { Clock } from "../../src/kit/clock.js";
import { createLogger } from "../../src/kit/logger.js";
import { type PurchaseInput, recordPurchase } from "../../src/modules/orders/index.js";
import { ProcessorRequestError } from "../../src/modules/payments/index.js";
import { OrganizationRateTaxCalculator } from "../../src/modules/tax/index.js";
import { webhookEventSink } from "../../src/modules/webhooks/index.js";
import { startKassa } from "../../src/server.js";

type Request =
  | { id: number; op: "sql"; text: string; params: unknown[] }
  | {
      id: number;
      op: "api";
      name: string;
      args: { body?: unknown; query?: unknown; headers?: Record<string, string> };
    }
  | { id: number; op: "stop" }
  | { id: number; op: "payments"; target: "processor" | "tax"; method: string; args: unknown }
  | { id: number; op: "purchase"; input: PurchaseInput; now?: string };

const send = (message: unknown) => process.send?.(message);

// A cheap hash keeps suites that create many users fast; one suite keeps the real scrypt.
const fastHash = process.env.KASSA_TEST_FAST_HASH === "1";
const password = fastHash
  ? {
      hash: async (plain: string) => `plain:${Buffer.from(plain).toString("base64")}`,
      verify: async ({ hash, password: plain }: { hash: string; password: string }) =>
        hash === `plain:${Buffer.from(plain).toString("base64")}`,
    }
  : undefined;

const config = loadConfig();
const server = await startKassa(config, {
  logger: createLogger(config.logLevel),
  ...(password ? { password } : {}),
});

process.on("message", async (raw: Request) => {
  try {
    if (raw.op === "sql") {
      const result = await sql.raw(bind(raw.text, raw.params)).execute(server.database.db);
      send({ id: raw.id, ok: true, value: result.rows });
    } else if (raw.op === "api") {
      const api = server.auth.api as unknown as Record<string, (args: unknown) => Promise<unknown>>;
      const fn = api[raw.name];
      if (!fn) throw new Error(`no server API named ${raw.name}`);
      const value = await fn({
        ...raw.args,
        ...(raw.args.headers ? { headers: new Headers(raw.args.headers) } : {}),
      });
      send({ id: raw.id, ok: true, value: JSON.parse(JSON.stringify(value ?? null)) });
    } else if (raw.op === "payments") {
      // The processor the server runs with (and the default tax calculator), called as a
      // checkout or a renewal will call them.
      const target =
        raw.target === "tax"
          ? new OrganizationRateTaxCalculator(server.database.db)
          : server.payments.processor;
      const fn = (target as unknown as Record<string, (args: unknown) => Promise<unknown>>)[raw.method];
      if (typeof fn !== "function") throw new Error(`no ${raw.target} method named ${raw.method}`);
      const value = await fn.call(target, raw.args);
      send({ id: raw.id, ok: true, value: JSON.parse(JSON.stringify(value ?? null)) });
    } else if (raw.op === "purchase") {
      // A paid purchase recorded as a checkout records it (in one transaction, as Kassa
      // itself), at `now` when given: for suites that need orders before checkouts exist.
      const clock: Clock = raw.now ? { now: () => new Date(raw.now as string) } : { now: () => new Date() };
      const db = server.database.db;
      const value = await db.transaction().execute((trx) =>
        recordPurchase(
          trx,
          {
            organizationId: raw.input.organizationId,
            actor: { kind: "system", reason: "test purchase" },
            db,
            clock,
            events: webhookEventSink(clock),
          },
          raw.input,
        ),
      );
      send({ id: raw.id, ok: true, value });
    } else if (raw.op === "stop") {
      await server.close();
      send({ id: raw.id, ok: true, value: null });
      process.exit(0);
    }
  } catch (error) {
    if (error instanceof ProcessorRequestError) {
      send({ id: raw.id, ok: false, error: { message: error.message, status: error.code, body: null } });
      return;
    }
    const e = error as { status?: unknown; statusCode?: number; body?: unknown; message?: string };
    send({
      id: raw.id,
      ok: false,
      error: { message: e.message, status: e.statusCode ?? e.status, body: e.body },
    });
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    server.close().then(() => process.exit(0));
  });
}

send({ ready: true, port: server.port });

/** Inlines $1..$n as SQL literals: test-only, for readable assertions on the database. */
function bind(text: string, params: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]));
}
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Date) return `'${value.toISOString()}'`;
  return `'${String(value).replace(/'/g, "''")}'`;
}
