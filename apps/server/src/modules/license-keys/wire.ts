import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { type CustomerRow, customerWire, findCustomersById } from "../customers/index.js";
import { displayKey } from "./keys.js";
import type { ActivationRow, LicenseKeyRow } from "./repository.js";
import type { LicenseKeyActivationBaseWire, LicenseKeyReadWire, LicenseKeyStatus } from "./schemas.js";

/** A key in Polar's `LicenseKeyRead` shape, with its customer (who may since have been deleted). */
export function licenseKeyWire(row: LicenseKeyRow, customer: CustomerRow): LicenseKeyReadWire {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    organization_id: row.organization_id,
    customer_id: row.customer_id,
    customer: customerWire(customer),
    benefit_id: row.benefit_id,
    key: row.key,
    display_key: displayKey(row.key),
    status: row.status as LicenseKeyStatus,
    limit_activations: row.limit_activations,
    usage: row.usage,
    limit_usage: row.limit_usage,
    validations: row.validations,
    last_validated_at: iso(row.last_validated_at),
    expires_at: iso(row.expires_at),
  };
}

export function activationWire(row: ActivationRow): LicenseKeyActivationBaseWire {
  return {
    id: row.id,
    license_key_id: row.license_key_id,
    label: row.label,
    meta: row.meta,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  };
}

/** The wire shapes of several keys, their customers read in one query. */
export async function licenseKeysWire(db: Db, organizationId: string, rows: LicenseKeyRow[]) {
  const ids = [...new Set(rows.map((r) => r.customer_id))];
  const customers = new Map((await findCustomersById(db, organizationId, ids)).map((c) => [c.id, c]));
  return rows.map((row) => {
    const customer = customers.get(row.customer_id);
    // The foreign key keeps the customer row (customers are deleted softly).
    if (!customer) throw new Error(`customer ${row.customer_id} of license key ${row.id} vanished`);
    return licenseKeyWire(row, customer);
  });
}

export async function oneLicenseKeyWire(db: Db, row: LicenseKeyRow): Promise<LicenseKeyReadWire> {
  const [wire] = await licenseKeysWire(db, row.organization_id, [row]);
  if (!wire) throw new Error(`license key ${row.id} has no wire shape`);
  return wire;
}
