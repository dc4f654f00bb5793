import type { CustomerCreate, CustomerUpdate } from "@kassa/contracts/v1";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import {
  type Customer,
  type CustomerState,
  type CustomerSummary,
  getQuery,
  invalidate,
  listQuery,
  type QueryValue,
  v1,
} from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's customers, a page of them by the list's params and search. */
export const customersQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Customer>(organizationId, "customers", params);

/** One customer. */
export const customerQuery = (organizationId: string, customerId: string) =>
  getQuery<Customer>(organizationId, "customers", customerId);

/** A customer's state: active subscriptions, granted benefits, meter balances. */
export const customerStateQuery = (organizationId: string, customerId: string) =>
  queryOptions({
    queryKey: ["v1", organizationId, "customers", "state", customerId],
    queryFn: () => v1<CustomerState>(organizationId, `/customers/${customerId}/state`),
    enabled: organizationId !== "" && customerId !== "",
  });

/** Kassa's own summary of the customer's purchases (one aggregate on the server). */
export const customerSummaryQuery = (organizationId: string, customerId: string) =>
  queryOptions({
    queryKey: ["v1", organizationId, "customers", "summary", customerId],
    queryFn: () => v1<CustomerSummary>(organizationId, `/customers/${customerId}/summary`),
    enabled: organizationId !== "" && customerId !== "",
  });

export type CustomerBody = z.input<typeof CustomerCreate> | z.input<typeof CustomerUpdate>;

/** Creates a customer, or updates the one named by `id`. */
export const useSaveCustomer = (organizationId: string) =>
  useSaveRow<CustomerBody, Customer>(organizationId, "customers");

/** Deletes a customer (`DELETE /v1/customers/{id}`). */
export function useDeleteCustomer(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (customerId: string) => v1(organizationId, `/customers/${customerId}`, { method: "DELETE" }),
    onSuccess: () => invalidate(queryClient, organizationId, "customers"),
  });
}
