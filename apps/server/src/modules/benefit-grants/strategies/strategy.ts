import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../../db/schema.js";
import type { BenefitRow } from "../../benefits/index.js";
import type { Connections } from "../../oauth-accounts/index.js";
import type { GrantScope } from "../repository.js";

export type GrantProperties = Record<string, unknown>;

/** What a strategy is given: the benefit, whose grant, its properties so far, in whose transaction. */
export interface StrategyInput {
  trx: Transaction<KassaDatabase>;
  organizationId: string;
  customerId: string;
  benefit: BenefitRow;
  scope: GrantScope;
  /** The grant's properties before this step (`{}` for a new grant). */
  properties: GrantProperties;
  /** The organization's time. */
  now: Date;
  /** The customers' GitHub and Discord accounts and the platforms' clients (absent: none configured). */
  connections: Connections | undefined;
  /**
   * A grant step asked by the customer's choice of account (portal `PATCH`, or a connect): the
   * grant may already have given access to another account, which is taken back first.
   */
  update?: boolean | undefined;
  /** A merchant's edit of the benefit (`refreshOnEdit`): a granted grant follows its new properties. */
  refresh?: boolean | undefined;
}

/**
 * How one benefit type takes effect. Each step answers the grant's new properties; a failure
 * the customer must fix (connect an account) throws `BenefitActionRequired` and is not retried;
 * any other error is retried by the job with backoff.
 */
export interface BenefitStrategy {
  /** Undo on every revoke (license keys), rather than only at the customer's last grant of the benefit. */
  revokeIndividually: boolean;
  /**
   * A merchant's edit of the benefit changes what its holders have (downloadables: the files):
   * each granted grant is granted again and, if its properties moved, `benefit_grant.updated`.
   */
  refreshOnEdit: boolean;
  grant(input: StrategyInput): Promise<GrantProperties>;
  revoke(input: StrategyInput): Promise<GrantProperties>;
  /** At a renewal (a paid `subscription_cycle` order). */
  cycle(input: StrategyInput): Promise<GrantProperties>;
}

/**
 * A failure only the customer can fix (Polar's `BenefitActionRequiredError`): recorded, never
 * retried. `properties`: the grant's properties to record with it, when the failed step changed
 * what the grant has (access it took back); otherwise they are left as they were.
 */
export class BenefitActionRequired extends Error {
  override name = "BenefitActionRequiredError";
  constructor(
    message?: string,
    readonly properties?: GrantProperties,
  ) {
    super(message);
  }
}
