import { z } from "zod";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";
import { BENEFIT_TYPES, type BenefitType, GITHUB_PERMISSIONS, LICENSE_KEY_TIMEFRAMES } from "./values.js";

const Snowflake = z.string().regex(/^\d{17,20}$/, "A Discord id: 17 to 20 digits");

const CustomProperties = z.object({
  note: z
    .string()
    .max(10_000)
    .nullish()
    .transform((v) => v ?? null),
});

const DiscordProperties = z
  .object({
    guild_id: Snowflake.optional(),
    guild_token: z.string().min(1).optional(),
    role_id: Snowflake,
    kick_member: z.boolean().default(false),
  })
  .superRefine((p, ctx) => {
    if (!p.guild_id && !p.guild_token)
      ctx.addIssue({
        code: "custom",
        path: ["guild_id"],
        message: "A guild_id (or guild_token) is required",
      });
  })
  .transform((p) => ({
    guild_id: p.guild_id ?? "",
    role_id: p.role_id,
    kick_member: p.kick_member,
    guild_token: p.guild_token ?? "",
  }));

const DownloadablesProperties = z
  .object({
    files: z.array(z.uuid()).min(1),
    archived: z.record(z.string(), z.boolean()).default({}),
  })
  .superRefine((p, ctx) => {
    for (const id of Object.keys(p.archived))
      if (!p.files.includes(id))
        ctx.addIssue({ code: "custom", path: ["archived", id], message: "Not one of this benefit's files" });
  })
  .transform((p) => ({ archived: p.archived, files: p.files }));

const GitHubRepositoryProperties = z.object({
  repository_owner: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "A GitHub user or organization name"),
  repository_name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "A GitHub repository name"),
  permission: z.enum(GITHUB_PERMISSIONS),
});

const LicenseKeysProperties = z
  .object({
    prefix: z.string().trim().min(1).max(32).nullish(),
    expires: z
      .object({ ttl: z.number().int().min(1).max(1000), timeframe: z.enum(LICENSE_KEY_TIMEFRAMES) })
      .nullish(),
    activations: z
      .object({ limit: z.number().int().min(1).max(50), enable_customer_admin: z.boolean().default(false) })
      .nullish(),
    limit_usage: z.number().int().min(1).nullish(),
    // Kassa's own (beyond Polar): keys signed with the organization's Ed25519 key, which the
    // merchant's app can verify offline. Answered only when true, so Polar's shape stays as it is.
    signed: z.boolean().optional(),
  })
  .transform((p) => ({
    prefix: p.prefix ?? null,
    expires: p.expires ?? null,
    activations: p.activations ?? null,
    limit_usage: p.limit_usage ?? null,
    ...(p.signed ? { signed: true } : {}),
  }));

const MeterCreditProperties = z.object({
  units: z.number().int().min(1).max(2_147_483_647),
  rollover: z.boolean(),
  meter_id: z.string(),
});

/** The properties each type takes, validated the same way on create and update. */
export const BENEFIT_PROPERTIES: Record<BenefitType, z.ZodType<Record<string, unknown>>> = {
  custom: CustomProperties,
  discord: DiscordProperties,
  downloadables: DownloadablesProperties,
  github_repository: GitHubRepositoryProperties,
  license_keys: LicenseKeysProperties,
  meter_credit: MeterCreditProperties,
};

const Description = z.string().trim().min(3).max(42);

const createCommon = {
  description: Description,
  metadata: MetadataInput.optional(),
  organization_id: z.string().nullish(),
};

export const BenefitCreate = z
  .discriminatedUnion("type", [
    z.object({
      ...createCommon,
      type: z.literal("custom"),
      properties: CustomProperties.default({ note: null }),
    }),
    z.object({ ...createCommon, type: z.literal("discord"), properties: DiscordProperties }),
    z.object({ ...createCommon, type: z.literal("downloadables"), properties: DownloadablesProperties }),
    z.object({
      ...createCommon,
      type: z.literal("github_repository"),
      properties: GitHubRepositoryProperties,
    }),
    z.object({ ...createCommon, type: z.literal("license_keys"), properties: LicenseKeysProperties }),
    z.object({ ...createCommon, type: z.literal("meter_credit"), properties: MeterCreditProperties }),
  ])
  .meta({ id: "BenefitCreate" });

export const BenefitUpdate = z
  .object({
    type: z.enum(BENEFIT_TYPES).optional(),
    description: Description.nullish(),
    metadata: MetadataInput.optional(),
    properties: z.record(z.string(), z.unknown()).nullish(),
  })
  .meta({ id: "BenefitUpdate" });

export const Benefit = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    type: z.enum(BENEFIT_TYPES),
    description: z.string(),
    selectable: z.boolean(),
    deletable: z.boolean(),
    is_deleted: z.boolean(),
    organization_id: z.string(),
    metadata: MetadataOutput,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "Benefit" });

export type BenefitWire = z.output<typeof Benefit>;
export type BenefitCreateInput = z.output<typeof BenefitCreate>;
export type BenefitUpdateInput = z.output<typeof BenefitUpdate>;
