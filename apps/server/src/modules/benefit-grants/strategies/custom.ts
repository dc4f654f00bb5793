import type { BenefitStrategy } from "./strategy.js";

/**
 * `custom`: nothing happens outside Kassa. The grant's properties are `{}`; what the customer
 * gets is the benefit's note (`properties.note`), shown to them in the portal.
 */
export const customStrategy: BenefitStrategy = {
  refreshOnEdit: false,
  revokeIndividually: false,
  grant: async () => ({}),
  revoke: async () => ({}),
  cycle: async ({ properties }) => properties,
};
