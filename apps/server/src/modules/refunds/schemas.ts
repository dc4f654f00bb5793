/** The wire schemas live in `@kassa/contracts/v1` (refunds.ts); this module reads them from there. */
export {
  MANUAL_REFUND_REASONS,
  REFUND_REASONS,
  REFUND_STATUSES,
  Refund,
  RefundCreate,
  type RefundCreateInput,
  type RefundStatus,
  type RefundWire,
} from "@kassa/contracts/v1";
