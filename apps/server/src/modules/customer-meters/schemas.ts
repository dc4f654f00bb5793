/** The wire schemas live in `@kassa/contracts/v1` (customer-meters.ts); this module reads them from there. */
export {
  Customer,
  CustomerCustomerMeter,
  type CustomerCustomerMeterWire,
  CustomerMeter,
  CustomerMeterCheck,
  type CustomerMeterCheckInput,
  CustomerMeterCheckResult,
  type CustomerMeterCheckResultWire,
  type CustomerMeterWire,
  type CustomerStateMeterWire,
  type CustomerWire,
  MeterLedgerEntry,
  type MeterLedgerEntryWire,
} from "@kassa/contracts/v1";
