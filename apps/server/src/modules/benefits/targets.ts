import { RequestValidationError } from "../../kit/api/errors.js";

/**
 * Which GitHub accounts (repository owners) and Discord servers each organization's benefits may
 * name: the installation has one GitHub token and one Discord bot for every organization, so
 * without this an organization could give its buyers access to another's repository or server.
 * `any`: no list (outside production, when the operator set none); otherwise the operator's
 * `GITHUB_BENEFIT_OWNERS` / `DISCORD_BENEFIT_GUILDS`, by organization id (an empty list in
 * production when unset: nothing is allowed until the operator says what is). By id, never by
 * slug: a merchant may change its slug, and could take one the operator listed.
 */
export type PlatformTargets = Map<string, Set<string>> | "any";

export interface BenefitTargets {
  github: PlatformTargets;
  discord: PlatformTargets;
}

let targets: BenefitTargets = { github: "any", discord: "any" };

/** Set at start from the configuration. */
export function configureBenefitTargets(value: BenefitTargets): void {
  targets = value;
}

const RULES = {
  github_repository: {
    platform: "github",
    property: "repository_owner",
    variable: "GITHUB_BENEFIT_OWNERS",
    what: "GitHub account",
  },
  discord: {
    platform: "discord",
    property: "guild_id",
    variable: "DISCORD_BENEFIT_GUILDS",
    what: "Discord server",
  },
} as const;

/**
 * Why this organization may not name this repository owner or Discord server in a benefit of
 * `type`, or null (any other type: null).
 */
export function refusedTarget(
  organizationId: string,
  type: string,
  properties: Record<string, unknown>,
): { property: string; message: string; value: string } | null {
  const rule = RULES[type as keyof typeof RULES];
  if (!rule) return null;
  const allowed = targets[rule.platform];
  if (allowed === "any") return null;
  const value = String(properties[rule.property] ?? "");
  if (allowed.get(organizationId)?.has(value.toLowerCase())) return null;
  return {
    property: rule.property,
    value,
    message: `This ${rule.what} is not one ${rule.variable} gives this organization.`,
  };
}

/** 422 on the property when the benefit names a target the organization is not given. */
export function checkTarget(organizationId: string, type: string, properties: Record<string, unknown>) {
  const refused = refusedTarget(organizationId, type, properties);
  if (refused)
    throw RequestValidationError.field(
      ["body", "properties", refused.property],
      refused.message,
      refused.value,
    );
}
