import { findFiles } from "../../files/index.js";
import type { BenefitStrategy } from "./strategy.js";

/**
 * `downloadables`: the grant lists the files the customer may download (`{files: [ids]}`): the
 * benefit's files that are live and not archived at grant time, in the benefit's order. A file
 * archived later stays with those who already have it (Polar's archived map), also when an
 * edit grants again. Revoking takes them all back (`{}`).
 */
export const downloadablesStrategy: BenefitStrategy = {
  refreshOnEdit: true,
  revokeIndividually: false,
  async grant({ trx, organizationId, benefit, properties }) {
    const had = new Set((properties.files as string[] | undefined) ?? []);
    const ids = (benefit.properties.files as string[] | undefined) ?? [];
    const archived = (benefit.properties.archived as Record<string, boolean> | undefined) ?? {};
    const live = new Set(
      (await findFiles(trx, organizationId, ids)).filter((f) => f.is_uploaded).map((f) => f.id),
    );
    return { files: ids.filter((id) => live.has(id) && (!archived[id] || had.has(id))) };
  },
  revoke: async () => ({}),
  cycle: async ({ properties }) => properties,
};
