import type { MeterCreate, MeterUpdate } from "@kassa/contracts/v1";
import type { z } from "zod";
import { listQuery, type Meter, type QueryValue } from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's meters, a page of them by the list's params. */
export const metersQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Meter>(organizationId, "meters", params);

export type MeterBody = z.input<typeof MeterCreate> | z.input<typeof MeterUpdate>;

/** Creates a meter, or updates (or archives) the one named by `id`. */
export const useSaveMeter = (organizationId: string) =>
  useSaveRow<MeterBody, Meter>(organizationId, "meters");
