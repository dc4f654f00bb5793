import type { BenefitType } from "@kassa/contracts/v1";
import { discordStrategy, githubRepositoryStrategy } from "./accounts.js";
import { customStrategy } from "./custom.js";
import { downloadablesStrategy } from "./downloadables.js";
import { licenseKeysStrategy } from "./license-keys.js";
import { meterCreditStrategy } from "./meter-credit.js";
import type { BenefitStrategy } from "./strategy.js";

export {
  BenefitActionRequired,
  type BenefitStrategy,
  type GrantProperties,
  type StrategyInput,
} from "./strategy.js";

/** The strategy of each benefit type. */
export const STRATEGIES: Record<BenefitType, BenefitStrategy> = {
  custom: customStrategy,
  downloadables: downloadablesStrategy,
  meter_credit: meterCreditStrategy,
  github_repository: githubRepositoryStrategy,
  discord: discordStrategy,
  license_keys: licenseKeysStrategy,
};
