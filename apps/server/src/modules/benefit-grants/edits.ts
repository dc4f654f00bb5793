import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import * as repo from "./repository.js";
import type { SyncInput } from "./sync.js";

/**
 * What a catalog edit moves: a product's benefits changed (`product`), a benefit whose type
 * refreshes its grants on edit was edited (`benefit`), a benefit was deleted (`deleted`).
 */
export type CatalogEdit = { kind: "product" | "benefit" | "deleted"; id: string };

/** The syncs an edit calls for: the customers whose grants it may move. */
export async function syncsForEdit(
  db: Kysely<KassaDatabase>,
  organizationId: string,
  edit: CatalogEdit,
): Promise<SyncInput[]> {
  const customers =
    edit.kind === "product"
      ? // The real time: an organization on a test clock is read at its clock's time in SQL.
        await repo.customersOfProduct(db, organizationId, edit.id, new Date())
      : await repo.customersHoldingBenefit(db, organizationId, edit.id);
  return customers.map((customerId) => ({
    organizationId,
    customerId,
    ...(edit.kind === "benefit" ? { editedBenefitId: edit.id } : {}),
  }));
}
