import { z } from "zod";
import { DateTime, DateTimeInput } from "./common.js";
import { PRORATION_BEHAVIORS, SLUG_PATTERN, SOCIAL_PLATFORMS } from "./values.js";

const SocialLink = z
  .object({ platform: z.enum(SOCIAL_PLATFORMS), url: z.url({ protocol: /^https?$/ }) })
  .meta({ id: "OrganizationSocialLink" });

const FeatureSettings = z
  .object({
    issue_funding_enabled: z.boolean(),
    usage_based_billing_enabled: z.boolean(),
    /** Whether recurring products may have a separate meter cycle (`meter_interval`; Polar's). */
    meter_cycling_enabled: z.boolean(),
  })
  .meta({ id: "OrganizationFeatureSettings" });

const SubscriptionSettings = z
  .object({
    allow_multiple_subscriptions: z.boolean(),
    allow_customer_updates: z.boolean(),
    proration_behavior: z.enum(PRORATION_BEHAVIORS),
    benefit_revocation_grace_period: z.number().int(),
    prevent_trial_abuse: z.boolean(),
  })
  .meta({ id: "OrganizationSubscriptionSettings" });

export const Organization = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    avatar_url: z.string().nullable(),
    proration_behavior: z.enum(PRORATION_BEHAVIORS),
    allow_customer_updates: z.boolean(),
    email: z.string().nullable(),
    website: z.string().nullable(),
    socials: z.array(SocialLink),
    status: z.literal("active"),
    details_submitted_at: DateTime.nullable(),
    default_presentment_currency: z.string(),
    default_tax_behavior: z.literal("location"),
    feature_settings: FeatureSettings,
    subscription_settings: SubscriptionSettings,
    notification_settings: z.object({ new_order: z.boolean(), new_subscription: z.boolean() }),
    customer_email_settings: z.record(z.string(), z.boolean()),
    customer_portal_settings: z.object({
      usage: z.object({ show: z.boolean() }),
      subscription: z.object({ update_seats: z.boolean(), update_plan: z.boolean() }),
    }),
    account_id: z.string().nullable(),
    payout_account_id: z.string().nullable(),
    capabilities: z.record(z.string(), z.boolean()),
  })
  .meta({ id: "Organization" });

export const OrganizationUpdate = z
  .object({
    name: z.string().trim().min(3).max(128).nullish(),
    slug: z
      .string()
      .min(3)
      .max(64)
      .regex(SLUG_PATTERN, "Lowercase letters, digits and dashes, not starting or ending with a dash")
      .nullish(),
    avatar_url: z.url({ protocol: /^https?$/ }).nullish(),
    email: z.email().nullish(),
    website: z.url({ protocol: /^https?$/ }).nullish(),
    socials: z.array(SocialLink).max(10).nullish(),
    details_submitted_at: DateTimeInput.nullish(),
    feature_settings: FeatureSettings.partial().nullish(),
    // A grace period is whole days, not negative (Polar stores any integer).
    subscription_settings: SubscriptionSettings.extend({
      benefit_revocation_grace_period: z.number().int().min(0).max(3650),
    })
      .partial()
      .nullish(),
  })
  .meta({ id: "OrganizationUpdate" });

export type OrganizationWire = z.output<typeof Organization>;
export type OrganizationUpdateInput = z.output<typeof OrganizationUpdate>;
