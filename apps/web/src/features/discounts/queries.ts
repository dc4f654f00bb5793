import type { DiscountCreate, DiscountUpdate } from "@kassa/contracts/v1";
import type { z } from "zod";
import type { Discount } from "../../lib/v1";
import { listQuery, type QueryValue } from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's discounts, a page of them by the list's params. */
export const discountsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Discount>(organizationId, "discounts", params);

export type DiscountBody = z.input<typeof DiscountCreate> | z.input<typeof DiscountUpdate>;

/** Creates a discount, or updates the one named by `id`. */
export const useSaveDiscount = (organizationId: string) =>
  useSaveRow<DiscountBody, Discount>(organizationId, "discounts");
