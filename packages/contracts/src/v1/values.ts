/**
 * The wire's pure values by noun: the lists its enums take and its limits, without zod. The
 * schemas (`<noun>.ts`) build on them; a page that needs a list at run time imports it from
 * here (through `@kassa/contracts/v1`) without loading the schemas.
 */

// benefits
export const BENEFIT_TYPES = [
  "custom",
  "discord",
  "downloadables",
  "github_repository",
  "license_keys",
  "meter_credit",
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];
export const GITHUB_PERMISSIONS = ["pull", "triage", "push", "maintain", "admin"] as const;
export const LICENSE_KEY_TIMEFRAMES = ["day", "month", "year"] as const;

// license-keys
export const LICENSE_KEY_STATUSES = ["granted", "revoked", "disabled"] as const;
export type LicenseKeyStatus = (typeof LICENSE_KEY_STATUSES)[number];

// checkouts
export const CHECKOUT_STATUSES = ["open", "expired", "confirmed", "succeeded", "failed"] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

// custom-fields
export const CUSTOM_FIELD_TYPES = ["checkbox", "date", "number", "select", "text"] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

// discounts
export const DISCOUNT_DURATIONS = ["once", "forever", "repeating"] as const;
export const DISCOUNT_TYPES = ["fixed", "percentage"] as const;

// files
/** The kinds of file (Polar's `FileServiceTypes`). */
export const FILE_SERVICES = ["downloadable", "product_media", "organization_avatar"] as const;
export type FileService = (typeof FILE_SERVICES)[number];
/** Most parts one upload may declare. */
export const MAX_PARTS = 10_000;
/** A MIME type as `type/subtype` with optional parameters. */
export const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;

// meters
export const FILTER_OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like"] as const;
export const CONJUNCTIONS = ["and", "or"] as const;
/** What an aggregation computes: `count`, or a function over a property of the events. */
export const AGGREGATION_FUNCS = ["count", "sum", "max", "min", "avg", "unique"] as const;
export const METER_UNITS = ["scalar", "token", "custom"] as const;

// orders
export const ORDER_STATUSES = ["pending", "paid", "refunded", "partially_refunded", "void"] as const;
export const BILLING_REASONS = [
  "purchase",
  "subscription_create",
  "subscription_cycle",
  "subscription_update",
  "subscription_meter_cycle",
] as const;

// organizations
/** Spec section 9. */
export const SOCIAL_PLATFORMS = [
  "x",
  "github",
  "facebook",
  "instagram",
  "youtube",
  "tiktok",
  "linkedin",
  "other",
] as const;
export const PRORATION_BEHAVIORS = ["invoice", "prorate"] as const;
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]*[a-z0-9]$/;

// products
/** A product's billing interval (Polar's `SubscriptionRecurringInterval`), times `recurring_interval_count`. */
export const RECURRING_INTERVALS = ["day", "week", "month", "year"] as const;
/** A trial's length unit (Polar's `TrialInterval`). */
export const TRIAL_INTERVALS = ["day", "week", "month", "year"] as const;
export type TrialInterval = (typeof TRIAL_INTERVALS)[number];
/** Most units a trial may last (Polar's bound on `trial_interval_count`). */
export const MAX_TRIAL_INTERVAL_COUNT = 1000;
export const VISIBILITIES = ["public", "private", "draft"] as const;
export const TAX_BEHAVIORS = ["location", "inclusive", "exclusive"] as const;
export const MAX_AMOUNT = 99_999_999;

// refunds
/** Polar's RefundReason (`dispute_prevention` is set by the platform only). */
export const REFUND_REASONS = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "dispute_prevention",
  "other",
] as const;
/** The reasons a merchant may give (Polar's ManualRefundReason). */
export const MANUAL_REFUND_REASONS = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "other",
] as const;
export const REFUND_STATUSES = ["pending", "succeeded", "failed", "canceled"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

// subscriptions
export const SUBSCRIPTION_STATUSES = [
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
] as const;
export const SUBSCRIPTION_RECURRING_INTERVALS = ["day", "week", "month", "year"] as const;
export const CANCELLATION_REASONS = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
] as const;
