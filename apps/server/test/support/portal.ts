import { randomUUID } from "node:crypto";
import type { TestServer } from "./server.js";

/**
 * Rows the customer portal reads, written with SQL: customers, orders and subscriptions are
 * created by checkouts (another module); these suites only need them to exist.
 */
export async function insertCustomer(
  server: Pick<TestServer, "sql">,
  organizationId: string,
  opts: { email?: string; name?: string | null; externalId?: string | null; deleted?: boolean } = {},
): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  const email = opts.email ?? `buyer-${id.slice(0, 8)}@example.com`;
  await server.sql(
    `insert into kassa_customer (id, organization_id, external_id, email, name, billing_address, metadata, created_at, deleted_at)
     values ($1, $2, $3, $4, $5, $6::jsonb, '{"tier":"gold"}'::jsonb, now(), $7)`,
    id,
    organizationId,
    opts.externalId ?? null,
    email,
    opts.name === undefined ? "Ada Buyer" : opts.name,
    JSON.stringify({ line1: "1 Main St", city: "Paris", postal_code: "75001", country: "FR" }),
    opts.deleted ? new Date() : null,
  );
  return { id, email };
}
