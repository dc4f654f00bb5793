import { z } from "zod";
import { DateTime } from "./common.js";
import { Customer } from "./customers.js";
import { Meter } from "./meters.js";

/** A customer's balance on one meter, as Polar answers it (`CustomerMeter`). */
export const CustomerMeter = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    customer_id: z.string(),
    meter_id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
    customer: Customer,
    meter: Meter,
  })
  .meta({ id: "CustomerMeter" });

/** The same numbers without the customer, in the customer state (`CustomerStateMeter`). */
export const CustomerStateMeter = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    meter_id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
  })
  .meta({ id: "CustomerStateMeter" });

/** The portal's copy (`CustomerCustomerMeter`): the meter reduced to its name. */
export const CustomerCustomerMeter = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    customer_id: z.string(),
    meter_id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
    meter: z.object({
      id: z.string(),
      created_at: DateTime,
      modified_at: DateTime.nullable(),
      name: z.string(),
    }),
  })
  .meta({ id: "CustomerCustomerMeter" });

export const LEDGER_KINDS = ["credit", "usage", "rollover", "expiry", "settlement", "correction"] as const;

/** One change to a customer's meter balance (Kassa's own; the sum of the entries is the balance). */
export const MeterLedgerEntry = z
  .object({
    id: z.string(),
    created_at: DateTime,
    customer_meter_id: z.string(),
    period: z.number().int(),
    kind: z.enum(LEDGER_KINDS),
    units: z.number(),
    reason: z.string().nullable(),
    grant_id: z.string().nullable(),
    /** The current period's usage so far is an open entry: it grows until the period closes. */
    open: z.boolean(),
  })
  .meta({ id: "MeterLedgerEntry" });

/** Check before use (Kassa's own): may the customer consume `units` more now? */
export const CustomerMeterCheck = z
  .object({
    customer_id: z.string().optional(),
    external_customer_id: z.string().optional(),
    meter_id: z.string(),
    units: z.number().positive(),
    record: z.boolean().optional().default(false),
  })
  .meta({ id: "CustomerMeterCheck" });

export const CustomerMeterCheckResult = z
  .object({
    allowed: z.boolean(),
    recorded: z.boolean(),
    customer_id: z.string(),
    meter_id: z.string(),
    units: z.number(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
    /** The units beyond the credits this check allowed: the lower of the meter's and the customer's caps (0: none set). */
    hard_cap_units: z.number(),
  })
  .meta({ id: "CustomerMeterCheckResult" });

/** Sets or clears (null) a customer's hard cap on a meter (Kassa's own). */
export const CustomerMeterHardCapUpdate = z
  .object({
    customer_id: z.string().optional(),
    external_customer_id: z.string().optional(),
    meter_id: z.string(),
    hard_cap_units: z.number().nonnegative().nullable(),
  })
  .meta({ id: "CustomerMeterHardCapUpdate" });

export const CustomerMeterHardCap = z
  .object({
    customer_id: z.string(),
    meter_id: z.string(),
    /** This customer's cap (null: none). */
    hard_cap_units: z.number().nullable(),
    /** The meter's cap (null: none). */
    meter_hard_cap_units: z.number().nullable(),
    /** What a check allows beyond the credits: the lower of the two set (0 when neither is). */
    effective_hard_cap_units: z.number(),
  })
  .meta({ id: "CustomerMeterHardCap" });

export const MeterQuantities = z
  .object({
    quantities: z.array(
      z.object({ timestamp: DateTime, quantity: z.number() }).meta({ id: "MeterQuantity" }),
    ),
    total: z.number(),
  })
  .meta({ id: "MeterQuantities" });

export type CustomerMeterWire = z.output<typeof CustomerMeter>;
export type CustomerStateMeterWire = z.output<typeof CustomerStateMeter>;
export type CustomerCustomerMeterWire = z.output<typeof CustomerCustomerMeter>;
export type MeterLedgerEntryWire = z.output<typeof MeterLedgerEntry>;
export type CustomerMeterCheckInput = z.output<typeof CustomerMeterCheck>;
export type CustomerMeterCheckResultWire = z.output<typeof CustomerMeterCheckResult>;
export type CustomerMeterHardCapUpdateInput = z.output<typeof CustomerMeterHardCapUpdate>;
export type CustomerMeterHardCapWire = z.output<typeof CustomerMeterHardCap>;
export type MeterQuantitiesWire = z.output<typeof MeterQuantities>;
