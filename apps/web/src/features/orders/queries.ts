import type { RefundCreate } from "@kassa/contracts/v1";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import {
  getQuery,
  invalidate,
  listQuery,
  type Order,
  type OrderInvoice,
  type OrderReceipt,
  type QueryValue,
  type Refund,
  v1,
} from "../../lib/v1";

/** An organization's orders, a page of them by the list's params and filters. */
export const ordersQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Order>(organizationId, "orders", params);

/** One order. */
export const orderQuery = (organizationId: string, orderId: string) =>
  getQuery<Order>(organizationId, "orders", orderId);

/** The refunds of one order. */
export const orderRefundsQuery = (organizationId: string, orderId: string) =>
  listQuery<Refund>(organizationId, "refunds", { order_id: orderId, limit: 100 });

/** The signed link of an order's invoice, once it was generated. */
export const invoiceQuery = (organizationId: string, orderId: string, enabled: boolean) =>
  queryOptions({
    queryKey: ["v1", organizationId, "orders", "invoice", orderId],
    queryFn: () => v1<OrderInvoice>(organizationId, `/orders/${orderId}/invoice`),
    enabled: enabled && organizationId !== "" && orderId !== "",
    staleTime: 60_000,
  });

/** The signed link of a paid order's receipt (`GET /v1/orders/{id}/receipt`; 422 while unpaid). */
export const receiptQuery = (organizationId: string, orderId: string, enabled: boolean) =>
  queryOptions({
    queryKey: ["v1", organizationId, "orders", "receipt", orderId],
    queryFn: () => v1<OrderReceipt>(organizationId, `/orders/${orderId}/receipt`),
    enabled: enabled && organizationId !== "" && orderId !== "",
    staleTime: 60_000,
  });

/** Generates an order's invoice (`POST /v1/orders/{id}/invoice`). */
export function useGenerateInvoice(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (orderId: string) => v1(organizationId, `/orders/${orderId}/invoice`, { method: "POST" }),
    onSuccess: () => invalidate(queryClient, organizationId, "orders"),
  });
}

/** Refunds (part of) an order (`POST /v1/refunds/`); the order and its refunds go stale. */
export function useCreateRefund(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof RefundCreate>) =>
      v1<Refund>(organizationId, "/refunds/", { method: "POST", body }),
    onSuccess: () =>
      Promise.all([
        invalidate(queryClient, organizationId, "orders"),
        invalidate(queryClient, organizationId, "refunds"),
      ]),
  });
}

/** What can still be refunded: the order's amount before tax, less what was refunded (tax follows in proportion). */
export const refundableAmount = (o: Pick<Order, "net_amount" | "refunded_amount">) =>
  Math.max(0, o.net_amount - o.refunded_amount);
