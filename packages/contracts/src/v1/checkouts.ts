import { z } from "zod";
import { AddressInput } from "./address.js";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";
import { refineTrialConfiguration, trialConfigurationInput } from "./products.js";
import { CHECKOUT_STATUSES, TRIAL_INTERVALS } from "./values.js";

const CustomFieldDataInput = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

const Email = z.email().max(320);
const Url = z.url().max(2048);
const Uuid = z.string().min(1);

const ALLOW_TRIAL =
  "Whether to enable the trial period for the checkout session. If `false`, the trial period will be disabled, even if the selected product has a trial configured.";

export const CheckoutCreate = z
  .object({
    products: z.array(Uuid).min(1).optional(),
    product_id: Uuid.nullish(),
    product_price_id: Uuid.nullish(),
    amount: z.number().int().nullish(),
    discount_id: Uuid.nullish(),
    allow_discount_codes: z.boolean().default(true),
    require_billing_address: z.boolean().default(false),
    is_business_customer: z.boolean().optional(),
    customer_id: Uuid.nullish(),
    external_customer_id: z.string().min(1).max(256).nullish(),
    customer_name: z.string().max(256).nullish(),
    customer_email: Email.nullish(),
    customer_ip_address: z.union([z.ipv4(), z.ipv6()]).nullish(),
    customer_billing_name: z.string().max(256).nullish(),
    customer_billing_address: AddressInput.nullish(),
    customer_tax_id: z.string().max(64).nullish(),
    customer_metadata: MetadataInput.optional(),
    metadata: MetadataInput.optional(),
    custom_field_data: CustomFieldDataInput.optional(),
    success_url: Url.nullish(),
    return_url: Url.nullish(),
    embed_origin: z.string().max(2048).nullish(),
    organization_id: z.string().nullish(),
    ...trialConfigurationInput,
    allow_trial: z.boolean().default(true).meta({ description: ALLOW_TRIAL }),
  })
  .superRefine(refineTrialConfiguration)
  .superRefine((v, ctx) => {
    if (!v.products && !v.product_id && !v.product_price_id)
      ctx.addIssue({
        code: "invalid_type",
        expected: "array",
        path: ["products"],
        message: "Field required",
      });
  })
  .meta({ id: "CheckoutCreate" });

/** The fields a buyer may change on the checkout page (Polar's CheckoutUpdatePublic). */
const publicFields = {
  custom_field_data: CustomFieldDataInput.optional(),
  product_id: Uuid.nullish(),
  product_price_id: Uuid.nullish(),
  amount: z.number().int().nullish(),
  is_business_customer: z.boolean().nullish(),
  customer_name: z.string().max(256).nullish(),
  customer_email: Email.nullish(),
  customer_billing_name: z.string().max(256).nullish(),
  customer_billing_address: AddressInput.nullish(),
  customer_tax_id: z.string().max(64).nullish(),
  locale: z.string().max(16).nullish(),
  discount_code: z.string().max(256).nullish(),
  allow_trial: z.literal(false).nullish(),
};

export const CheckoutUpdatePublic = z.object(publicFields).meta({ id: "CheckoutUpdatePublic" });

export const CheckoutConfirm = z
  .object({ ...publicFields, confirmation_token_id: z.string().min(1).max(256).nullish() })
  .meta({ id: "CheckoutConfirmStripe" });

/** What the merchant may change on an open checkout (Polar's CheckoutUpdate). */
export const CheckoutUpdate = z
  .object({
    custom_field_data: CustomFieldDataInput.optional(),
    product_id: Uuid.nullish(),
    product_price_id: Uuid.nullish(),
    amount: z.number().int().nullish(),
    is_business_customer: z.boolean().nullish(),
    customer_name: z.string().max(256).nullish(),
    customer_email: Email.nullish(),
    customer_billing_name: z.string().max(256).nullish(),
    customer_billing_address: AddressInput.nullish(),
    customer_tax_id: z.string().max(64).nullish(),
    locale: z.string().max(16).nullish(),
    metadata: MetadataInput.optional(),
    discount_id: Uuid.nullish(),
    allow_discount_codes: z.boolean().nullish(),
    require_billing_address: z.boolean().nullish(),
    customer_ip_address: z.union([z.ipv4(), z.ipv6()]).nullish(),
    customer_metadata: MetadataInput.nullish(),
    success_url: Url.nullish(),
    return_url: Url.nullish(),
    embed_origin: z.string().max(2048).nullish(),
    ...trialConfigurationInput,
    allow_trial: z.boolean().nullish().meta({ description: ALLOW_TRIAL }),
  })
  .superRefine(refineTrialConfiguration)
  .meta({ id: "CheckoutUpdate" });

export type CheckoutCreateInput = z.output<typeof CheckoutCreate>;
export type CheckoutUpdateInput = z.output<typeof CheckoutUpdate>;
export type CheckoutUpdatePublicInput = z.output<typeof CheckoutUpdatePublic>;
export type CheckoutConfirmInput = z.output<typeof CheckoutConfirm>;

const Address = z.object({
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string(),
});

const FieldMode = z.enum(["required", "optional", "disabled"]);

/** The fields of Polar's `Checkout`, for the document (answers are built in wire.ts). */
const checkoutShape = {
  id: z.string(),
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  custom_field_data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  payment_processor: z.literal("stripe"),
  status: z.enum(CHECKOUT_STATUSES),
  client_secret: z.string(),
  url: z.string(),
  expires_at: DateTime,
  success_url: z.string(),
  return_url: z.string().nullable(),
  embed_origin: z.string().nullable(),
  amount: z.number().int(),
  discount_amount: z.number().int(),
  net_amount: z.number().int(),
  tax_amount: z.number().int().nullable(),
  tax_behavior: z.enum(["inclusive", "exclusive"]).nullable(),
  total_amount: z.number().int(),
  currency: z.string(),
  allow_trial: z.boolean().nullable(),
  active_trial_interval: z.enum(TRIAL_INTERVALS).nullable(),
  active_trial_interval_count: z.number().int().nullable(),
  trial_end: DateTime.nullable(),
  organization_id: z.string(),
  product_id: z.string().nullable(),
  product_price_id: z.string().nullable(),
  discount_id: z.string().nullable(),
  allow_discount_codes: z.boolean(),
  require_billing_address: z.boolean(),
  is_discount_applicable: z.boolean(),
  is_free_product_price: z.boolean(),
  is_payment_required: z.boolean(),
  is_payment_setup_required: z.boolean(),
  is_payment_form_required: z.boolean(),
  customer_id: z.string().nullable(),
  is_business_customer: z.boolean(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_ip_address: z.string().nullable(),
  customer_billing_name: z.string().nullable(),
  customer_billing_address: Address.nullable(),
  customer_tax_id: z.string().nullable(),
  locale: z.string().nullable(),
  payment_processor_metadata: z.record(z.string(), z.string()),
  billing_address_fields: z.object({
    country: FieldMode,
    state: FieldMode,
    city: FieldMode,
    postal_code: FieldMode,
    line1: FieldMode,
    line2: FieldMode,
  }),
  products: z.array(z.record(z.string(), z.unknown())),
  product: z.record(z.string(), z.unknown()).nullable(),
  product_price: z.record(z.string(), z.unknown()).nullable(),
  prices: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))).nullable(),
  discount: z.record(z.string(), z.unknown()).nullable(),
  attached_custom_fields: z.array(z.record(z.string(), z.unknown())).nullable(),
};

export const Checkout = z
  .object({
    ...checkoutShape,
    trial_interval: z.enum(TRIAL_INTERVALS).nullable(),
    trial_interval_count: z.number().int().nullable(),
    metadata: MetadataOutput,
    external_customer_id: z.string().nullable(),
    subscription_id: z.string().nullable(),
    customer_metadata: MetadataOutput,
  })
  .meta({ id: "Checkout" });

const CheckoutOrganization = z.object({
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  avatar_url: z.string().nullable(),
  proration_behavior: z.enum(["invoice", "prorate"]),
  allow_customer_updates: z.boolean(),
});

export const CheckoutPublic = z
  .object({ ...checkoutShape, organization: CheckoutOrganization })
  .meta({ id: "CheckoutPublic" });

export const CheckoutPublicConfirmed = z
  .object({
    ...checkoutShape,
    status: z.literal("confirmed"),
    organization: CheckoutOrganization,
    customer_session_token: z.string().nullable(),
  })
  .meta({ id: "CheckoutPublicConfirmed" });

export type CheckoutWire = z.output<typeof Checkout>;
export type CheckoutPublicWire = z.output<typeof CheckoutPublic>;
