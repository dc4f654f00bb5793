import type { BenefitCreate, BenefitUpdate } from "@kassa/contracts/v1";
import type { z } from "zod";
import { type Benefit, listQuery, type QueryValue } from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's benefits, a page of them by the list's params. */
export const benefitsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Benefit>(organizationId, "benefits", params);

export type BenefitBody = z.input<typeof BenefitCreate> | z.input<typeof BenefitUpdate>;

/** Creates a benefit, or updates the one named by `id`. */
export const useSaveBenefit = (organizationId: string) =>
  useSaveRow<BenefitBody, Benefit>(organizationId, "benefits");
