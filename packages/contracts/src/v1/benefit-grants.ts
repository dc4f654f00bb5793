import { z } from "zod";
import { DateTime, MetadataOutput } from "./common.js";
import { BENEFIT_TYPES } from "./values.js";

const Embedded = z.record(z.string(), z.unknown());

/** Why the last attempt at a grant failed (Polar's `BenefitGrantError`). */
export const BenefitGrantError = z
  .object({ message: z.string(), type: z.string(), timestamp: z.string() })
  .meta({ id: "BenefitGrantError" });

const grantFields = {
  id: z.string(),
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  granted_at: DateTime.nullable(),
  is_granted: z.boolean(),
  revoked_at: DateTime.nullable(),
  is_revoked: z.boolean(),
  subscription_id: z.string().nullable(),
  order_id: z.string().nullable(),
  customer_id: z.string(),
  member_id: z.string().nullable(),
  benefit_id: z.string(),
  error: BenefitGrantError.nullable(),
  properties: Embedded,
};

/**
 * A benefit granted to a customer for a cause (a subscription or a one-time order), as
 * `GET /v1/benefit-grants/` and `GET /v1/benefits/{id}/grants` list it. `properties` depend on
 * the benefit's type (`{files}` for downloadables, `{license_key_id, display_key}`, ...).
 */
export const BenefitGrant = z
  .object({ ...grantFields, customer: Embedded, member: Embedded.nullable(), benefit: Embedded })
  .meta({ id: "BenefitGrant" });

/** A grant as its customer sees it in the portal (the benefit in its subscriber shape). */
export const CustomerBenefitGrant = z
  .object({ ...grantFields, customer: Embedded, benefit: Embedded })
  .meta({ id: "CustomerBenefitGrant" });

/** A granted benefit in the customer state (`granted_benefits`). */
export const CustomerStateBenefitGrant = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    granted_at: DateTime,
    benefit_id: z.string(),
    benefit_type: z.enum(BENEFIT_TYPES),
    benefit_metadata: MetadataOutput,
    properties: Embedded,
  })
  .meta({ id: "CustomerStateBenefitGrant" });

export type BenefitGrantWire = z.output<typeof BenefitGrant>;
export type CustomerBenefitGrantWire = z.output<typeof CustomerBenefitGrant>;
export type CustomerStateBenefitGrantWire = z.output<typeof CustomerStateBenefitGrant>;

/** The account a GitHub or Discord grant goes to: one the customer connected, or `null` for none. */
const AccountPropertiesUpdate = z.object({ account_id: z.string().nullable() });

const plainUpdate = <T extends string>(type: T, id: string) =>
  z.object({ benefit_type: z.literal(type) }).meta({ id });

/**
 * The body of `PATCH /v1/customer-portal/benefit-grants/{id}` (Polar's `CustomerBenefitGrantUpdate`):
 * `benefit_type` must be the grant's; GitHub and Discord grants take the account to use.
 */
export const CustomerBenefitGrantUpdate = z
  .discriminatedUnion("benefit_type", [
    z
      .object({
        benefit_type: z.literal("discord"),
        properties: AccountPropertiesUpdate.meta({ id: "CustomerBenefitGrantDiscordPropertiesUpdate" }),
      })
      .meta({ id: "CustomerBenefitGrantDiscordUpdate" }),
    z
      .object({
        benefit_type: z.literal("github_repository"),
        properties: AccountPropertiesUpdate.meta({
          id: "CustomerBenefitGrantGitHubRepositoryPropertiesUpdate",
        }),
      })
      .meta({ id: "CustomerBenefitGrantGitHubRepositoryUpdate" }),
    plainUpdate("downloadables", "CustomerBenefitGrantDownloadablesUpdate"),
    plainUpdate("license_keys", "CustomerBenefitGrantLicenseKeysUpdate"),
    plainUpdate("custom", "CustomerBenefitGrantCustomUpdate"),
    plainUpdate("meter_credit", "CustomerBenefitGrantMeterCreditUpdate"),
  ])
  .meta({ id: "CustomerBenefitGrantUpdate" });

export type CustomerBenefitGrantUpdateValue = z.output<typeof CustomerBenefitGrantUpdate>;
