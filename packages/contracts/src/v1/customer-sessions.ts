import { z } from "zod";
import { DateTime } from "./common.js";

const returnUrl = z
  .url({ protocol: /^https?$/, message: "Input should be a valid URL" })
  .max(2083)
  .nullish()
  .meta({ description: "When set, the customer portal shows a back button to this URL." });

/**
 * Polar's `CustomerSessionCreate`: a customer named by `customer_id` or by
 * `external_customer_id` (also spelled `customer_external_id`). `member_id` and
 * `external_member_id` are accepted for compatibility and unused (no member model).
 */
export const CustomerSessionCreate = z
  .object({
    customer_id: z.string().optional(),
    external_customer_id: z.string().optional(),
    customer_external_id: z.string().optional(),
    member_id: z.string().nullish(),
    external_member_id: z.string().nullish(),
    return_url: returnUrl,
  })
  .meta({ id: "CustomerSessionCreate" });

const Address = z.object({
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string(),
});

/** The customer embedded in a session (Polar's `Customer`, as `/v1/customers/` answers it). */
const SessionCustomer = z.object({
  id: z.string(),
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  external_id: z.string().nullable(),
  email: z.string(),
  email_verified: z.boolean(),
  type: z.literal("individual"),
  name: z.string().nullable(),
  billing_address: Address.nullable(),
  tax_id: z.tuple([z.string(), z.string().nullable()]).nullable(),
  locale: z.string().nullable(),
  organization_id: z.string(),
  deleted_at: DateTime.nullable(),
  avatar_url: z.string(),
});

export const CustomerSession = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    token: z.string(),
    expires_at: DateTime,
    return_url: z.string().nullable(),
    customer_portal_url: z.string(),
    customer_id: z.string(),
    customer: SessionCustomer,
  })
  .meta({ id: "CustomerSession" });

export type CustomerSessionCreateInput = z.output<typeof CustomerSessionCreate>;
export type CustomerSessionWire = z.output<typeof CustomerSession>;

/**
 * Kassa's `POST /v1/customer-sessions/email`: a customer session whose pre-authenticated portal
 * link was mailed to the customer's own address. The token itself is never answered: only the
 * customer, who receives it, can open the link.
 */
export const CustomerSessionMailed = z
  .object({
    id: z.string(),
    created_at: DateTime,
    expires_at: DateTime,
    return_url: z.string().nullable(),
    customer_id: z.string(),
    email: z.string().meta({ description: "Where the link was mailed: the customer's e-mail." }),
  })
  .meta({ id: "CustomerSessionMailed" });

export type CustomerSessionMailedWire = z.output<typeof CustomerSessionMailed>;
