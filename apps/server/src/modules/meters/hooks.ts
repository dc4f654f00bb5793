import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Ctx } from "../../kit/context.js";
import type { MeterRow } from "./repository.js";

/**
 * What others do when a meter changes what it counts (its filter, its aggregation, or it is
 * unarchived): the customer meters recompute their totals, in the same transaction. Given by
 * the composition root: customer-meters imports this module, so it cannot be imported here.
 */
export interface MeterHooks {
  countingChanged?: (trx: Transaction<KassaDatabase>, ctx: Ctx, meter: MeterRow) => Promise<void>;
}
