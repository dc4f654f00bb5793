import { z } from "zod";
import { SCOPES } from "../scopes.js";
import { DateTime } from "./common.js";

export const ScopeSchema = z.enum(SCOPES).meta({ id: "Scope" });

export const OrganizationAccessToken = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string().meta({ format: "uuid4" }),
    scopes: z.array(ScopeSchema),
    expires_at: DateTime.nullable(),
    comment: z.string(),
    last_used_at: DateTime.nullable(),
    organization_id: z.string().meta({ format: "uuid4" }),
  })
  .meta({ id: "OrganizationAccessToken" });

export const OrganizationAccessTokenCreate = z
  .object({
    organization_id: z.string().nullish(),
    comment: z.string().min(1).max(255),
    expires_in: z.union([z.string(), z.number()]).nullish().meta({
      description:
        "Lifetime: an ISO 8601 duration (`P30D`, `PT12H`) or a number of seconds. Absent: never expires.",
    }),
    scopes: z.array(ScopeSchema),
  })
  .meta({ id: "OrganizationAccessTokenCreate" });

export const OrganizationAccessTokenUpdate = z
  .object({
    comment: z.string().min(1).max(255).nullish(),
    scopes: z.array(ScopeSchema).nullish(),
  })
  .meta({ id: "OrganizationAccessTokenUpdate" });

export const OrganizationAccessTokenCreateResponse = z
  .object({ organization_access_token: OrganizationAccessToken, token: z.string() })
  .meta({ id: "OrganizationAccessTokenCreateResponse" });

export type OrganizationAccessTokenCreateInput = z.output<typeof OrganizationAccessTokenCreate>;
export type OrganizationAccessTokenUpdateInput = z.output<typeof OrganizationAccessTokenUpdate>;
export type OrganizationAccessTokenWire = z.output<typeof OrganizationAccessToken>;
