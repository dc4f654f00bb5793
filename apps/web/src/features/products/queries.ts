import type { ProductBenefitsUpdate, ProductCreate, ProductUpdate } from "@kassa/contracts/v1";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { getQuery, invalidate, type Product, v1 } from "../../lib/v1";

/** One product of the organization (`GET /v1/products/{id}`); disabled for a new one (`""`). */
export const productQuery = (organizationId: string, productId: string) =>
  getQuery<Product>(organizationId, "products", productId);

export type ProductBody = z.input<typeof ProductCreate> | z.input<typeof ProductUpdate>;

/**
 * Saves a product (`POST /v1/products/` or `PATCH /v1/products/{id}`), then its benefits when
 * they changed (`POST /v1/products/{id}/benefits`), and marks the product lists stale.
 */
export function useSaveProduct(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      product,
      body,
      benefits,
    }: {
      product?: Product | undefined;
      body: ProductBody;
      benefits: z.input<typeof ProductBenefitsUpdate>["benefits"];
    }) => {
      const saved = product
        ? await v1<Product>(organizationId, `/products/${product.id}`, { method: "PATCH", body })
        : await v1<Product>(organizationId, "/products/", { method: "POST", body });
      const before = (product?.benefits.map((b) => b.id) ?? []).join(",");
      if (before !== benefits.join(","))
        await v1<Product>(organizationId, `/products/${saved.id}/benefits`, {
          method: "POST",
          body: { benefits } satisfies z.input<typeof ProductBenefitsUpdate>,
        });
      return saved;
    },
    onSuccess: () => invalidate(queryClient, organizationId, "products"),
  });
}

/** Archives a product (`PATCH /v1/products/{id}` with `is_archived`). */
export function useArchiveProduct(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (product: Product) =>
      v1<Product>(organizationId, `/products/${product.id}`, {
        method: "PATCH",
        body: { is_archived: true } satisfies z.input<typeof ProductUpdate>,
      }),
    onSuccess: () => invalidate(queryClient, organizationId, "products"),
  });
}

/** Puts an archived product back on sale (`PATCH /v1/products/{id}` with `is_archived: false`). */
export function useUnarchiveProduct(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (product: Product) =>
      v1<Product>(organizationId, `/products/${product.id}`, {
        method: "PATCH",
        body: { is_archived: false } satisfies z.input<typeof ProductUpdate>,
      }),
    onSuccess: () => invalidate(queryClient, organizationId, "products"),
  });
}
