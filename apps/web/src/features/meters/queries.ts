import type { MeterCreate, MeterQuantitiesWire, MeterUpdate } from "@kassa/contracts/v1";
import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import {
  type CustomerMeter,
  getQuery,
  listQuery,
  type Meter,
  type MeterLedgerEntry,
  type QueryValue,
  v1,
} from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's meters, a page of them by the list's params. */
export const metersQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Meter>(organizationId, "meters", params);

export const meterQuery = (organizationId: string, id: string) =>
  getQuery<Meter>(organizationId, "meters", id);

export interface QuantitiesParams {
  start_timestamp: string;
  end_timestamp: string;
  interval: string;
  timezone: string;
}

/** A meter's usage per interval over a range (`GET /v1/meters/{id}/quantities`). */
export const meterQuantitiesQuery = (organizationId: string, id: string, params: QuantitiesParams) =>
  queryOptions({
    // Under the meters key, so saving the meter (a new filter) refetches the chart.
    queryKey: ["v1", organizationId, "meters", "quantities", id, params],
    queryFn: () =>
      v1<MeterQuantitiesWire>(organizationId, `/meters/${id}/quantities`, {
        query: { ...params },
      }),
    enabled: organizationId !== "" && id !== "",
    placeholderData: (previous) => previous,
  });

/** The customers' balances on one meter, a page at a time. */
export const meterBalancesQuery = (
  organizationId: string,
  meterId: string,
  params: Record<string, QueryValue>,
) => listQuery<CustomerMeter>(organizationId, "customer-meters", { meter_id: meterId, ...params });

/** Every change to one customer meter's balance (`GET /v1/customer-meters/{id}/ledger`). */
export const customerMeterLedgerQuery = (organizationId: string, customerMeterId: string) =>
  queryOptions({
    queryKey: ["v1", organizationId, "customer-meters", "ledger", customerMeterId],
    queryFn: () =>
      v1<{ items: MeterLedgerEntry[]; balance: number }>(
        organizationId,
        `/customer-meters/${customerMeterId}/ledger`,
      ),
    enabled: organizationId !== "" && customerMeterId !== "",
  });

export type MeterBody = z.input<typeof MeterCreate> | z.input<typeof MeterUpdate>;

/** Creates a meter, or updates (or archives) the one named by `id`. */
export const useSaveMeter = (organizationId: string) =>
  useSaveRow<MeterBody, Meter>(organizationId, "meters");
