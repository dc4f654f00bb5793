import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { ProductForm } from "../../../features/products/product-form";
import { productQuery } from "../../../features/products/queries";

/** `/dashboard/{slug}/products/new` and `/dashboard/{slug}/products/{id}`: the product editor. */
export function ProductEditorPage() {
  const { productId = "new" } = useParams({ strict: false }) as { productId?: string };
  const { organizationId } = useBilling();
  const isNew = productId === "new";
  const product = useQuery(productQuery(organizationId, isNew ? "" : productId));
  if (!isNew && product.isPending) return <LoadingState label="Loading the product" />;
  if (!isNew && product.isError)
    return <ErrorState error={product.error} onRetry={() => void product.refetch()} />;
  return <ProductForm key={product.data?.id ?? "new"} product={isNew ? undefined : product.data} />;
}
