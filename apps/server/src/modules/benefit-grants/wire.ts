import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { type BenefitRow, benefitToWire, findBenefitsWithDeleted } from "../benefits/index.js";
import { customerWire, findCustomersById } from "../customers/index.js";
import type { GrantRow } from "./repository.js";

/** The fields every shape of a grant shares (Polar's `BenefitGrant` without what it embeds). */
export function grantFields(row: GrantRow) {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    granted_at: iso(row.granted_at),
    is_granted: row.granted_at !== null,
    revoked_at: iso(row.revoked_at),
    is_revoked: row.revoked_at !== null,
    subscription_id: row.subscription_id,
    order_id: row.order_id,
    customer_id: row.customer_id,
    member_id: null,
    benefit_id: row.benefit_id,
    error: row.error ?? null,
    properties: row.properties,
  };
}

/** The grants' benefits (deleted ones too), by id. */
export async function benefitsOf(db: Db, organizationId: string, rows: GrantRow[]) {
  const benefits = await findBenefitsWithDeleted(db, organizationId, [
    ...new Set(rows.map((r) => r.benefit_id)),
  ]);
  return new Map<string, BenefitRow>(benefits.map((b) => [b.id, b]));
}

/** Grants in Polar's `BenefitGrant` shape: the customer and the benefit embedded. */
export async function grantsWire(db: Db, organizationId: string, rows: GrantRow[]) {
  if (rows.length === 0) return [];
  const [benefits, customers] = await Promise.all([
    benefitsOf(db, organizationId, rows),
    findCustomersById(db, organizationId, [...new Set(rows.map((r) => r.customer_id))]),
  ]);
  const customerById = new Map(customers.map((c) => [c.id, c]));
  return rows.map((row) => {
    const benefit = benefits.get(row.benefit_id);
    const customer = customerById.get(row.customer_id);
    if (!benefit || !customer) throw new Error(`grant ${row.id}: its benefit or customer is missing`);
    return {
      ...grantFields(row),
      customer: customerWire(customer),
      member: null,
      benefit: benefitToWire(benefit),
    };
  });
}

export type GrantWire = Awaited<ReturnType<typeof grantsWire>>[number];
