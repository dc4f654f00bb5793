/**
 * What only the server side can do for a test (read the database, call Better Auth's server-only
 * API, the payment processor, record a purchase): the test host (host.ts) answers these over IPC
 * for a server in a child process, the in-process harness (in-process.ts) calls them directly.
 * Both send every answer through JSON, so a test sees the same values either way.
 */
import { sql } from "kysely";
import type { Clock } from "../../src/kit/clock.js";
import { type CreditInput, creditMeter, resetMeterPeriod } from "../../src/modules/customer-meters/index.js";
import { grantLicenseKey, revokeLicenseKey } from "../../src/modules/license-keys/index.js";
import { type PurchaseInput, recordPurchase } from "../../src/modules/orders/index.js";
import { ProcessorRequestError } from "../../src/modules/payments/index.js";
import { OrganizationRateTaxCalculator } from "../../src/modules/tax/index.js";
import { webhookEventSink } from "../../src/modules/webhooks/index.js";
import type { Kassa } from "../../src/server.js";

export interface ApiArgs {
  body?: unknown;
  query?: unknown;
  headers?: Record<string, string>;
}

export interface HostOps {
  sql(text: string, params: unknown[]): Promise<unknown[]>;
  api(name: string, args: ApiArgs): Promise<unknown>;
  payments(target: "processor" | "tax", method: string, args: unknown): Promise<unknown>;
  purchase(input: PurchaseInput, now?: string): Promise<unknown>;
  licenseKeys(op: LicenseKeyOp, args: Record<string, unknown>): Promise<unknown>;
  /** Calls customer-meters' exported credit or period reset in one transaction, as the grant engine and renewals will. */
  meter(action: MeterAction, input: MeterActionInput): Promise<unknown>;
}

/** What the grant engine calls in the license keys module (modules/license-keys/index.ts). */
export type LicenseKeyOp = "grant" | "revoke";

export type MeterAction = "credit" | "reset";
export type MeterActionInput =
  | Omit<CreditInput, "at">
  | { organizationId: string; customerId: string; meterId: string };

/** A cheap hash keeps suites that create many users fast; suites about passwords keep scrypt. */
export function testPasswordHasher(fastHash: boolean) {
  if (!fastHash) return undefined;
  return {
    hash: async (plain: string) => `plain:${Buffer.from(plain).toString("base64")}`,
    verify: async ({ hash, password: plain }: { hash: string; password: string }) =>
      hash === `plain:${Buffer.from(plain).toString("base64")}`,
  };
}

/** As the IPC channel carries it: JSON (dates become strings, undefined fields disappear). */
export const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

export function hostOps(server: Pick<Kassa, "database" | "auth" | "payments">): HostOps {
  const db = server.database.db;
  return {
    async sql(text, params) {
      const result = await sql.raw(bind(text, params)).execute(db);
      return asJson(result.rows) as unknown[];
    },
    async api(name, args) {
      const api = server.auth.api as unknown as Record<string, (args: unknown) => Promise<unknown>>;
      const fn = api[name];
      if (!fn) throw new Error(`no server API named ${name}`);
      const value = await fn({ ...args, ...(args.headers ? { headers: new Headers(args.headers) } : {}) });
      return asJson(value);
    },
    async payments(targetName, method, args) {
      // The processor the server runs with (and the default tax calculator), called as a
      // checkout or a renewal will call them.
      const target = targetName === "tax" ? new OrganizationRateTaxCalculator(db) : server.payments.processor;
      const fn = (target as unknown as Record<string, (args: unknown) => Promise<unknown>>)[method];
      if (typeof fn !== "function") throw new Error(`no ${targetName} method named ${method}`);
      return asJson(await fn.call(target, args));
    },
    async meter(action, input) {
      const value = await db
        .transaction()
        .execute(
          async (trx): Promise<unknown> =>
            action === "credit" ? creditMeter(trx, input as CreditInput) : resetMeterPeriod(trx, input),
        );
      return asJson(value);
    },
    async purchase(input, now) {
      // A paid purchase recorded as a checkout records it (in one transaction, as Kassa
      // itself), at `now` when given: for suites that need orders before checkouts exist.
      const clock: Clock = now ? { now: () => new Date(now) } : { now: () => new Date() };
      const value = await db.transaction().execute((trx) =>
        recordPurchase(
          trx,
          {
            organizationId: input.organizationId,
            actor: { kind: "system", reason: "test purchase" },
            db,
            clock,
            events: webhookEventSink(clock),
          },
          input,
        ),
      );
      return asJson(value);
    },
    async licenseKeys(op, args) {
      // As the grant engine calls them: in a transaction of its own, `now` as a Date.
      const now = new Date(typeof args.now === "string" ? args.now : Date.now());
      const value = await db.transaction().execute(
        async (trx): Promise<unknown> =>
          op === "grant"
            ? grantLicenseKey(trx, { ...(args as unknown as Parameters<typeof grantLicenseKey>[1]), now })
            : revokeLicenseKey(trx, {
                ...(args as unknown as Parameters<typeof revokeLicenseKey>[1]),
                now,
              }),
      );
      return asJson(value ?? null);
    },
  };
}

/** A failed call as the test side's ServerApiError takes it (message, status, body). */
export function hostError(error: unknown): { message: string | undefined; status: unknown; body: unknown } {
  if (error instanceof ProcessorRequestError)
    return { message: error.message, status: error.code, body: null };
  const e = error as { status?: unknown; statusCode?: number; body?: unknown; message?: string };
  return {
    message: e.message,
    status: e.statusCode ?? e.status,
    body: e.body === undefined ? undefined : asJson(e.body),
  };
}

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
