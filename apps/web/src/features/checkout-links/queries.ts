import type { CheckoutLinkCreate, CheckoutLinkUpdate } from "@kassa/contracts/v1";
import type { z } from "zod";
import { type CheckoutLink, listQuery, type QueryValue } from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's checkout links, a page of them by the list's params. */
export const checkoutLinksQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<CheckoutLink>(organizationId, "checkout-links", params);

export type CheckoutLinkBody = z.input<typeof CheckoutLinkCreate> | z.input<typeof CheckoutLinkUpdate>;

/** Creates a checkout link, or updates the one named by `id`. */
export const useSaveCheckoutLink = (organizationId: string) =>
  useSaveRow<CheckoutLinkBody, CheckoutLink>(organizationId, "checkout-links");

/** A link's name in lists: its label, else its products. */
export const linkName = (l: CheckoutLink) =>
  l.label || l.products.map((p) => p.name).join(", ") || "Checkout link";
