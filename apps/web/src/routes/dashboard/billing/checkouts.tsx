import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { ListPage } from "../../../features/billing/list-page";
import { FormModal } from "../../../features/billing/row-actions";
import { CheckoutDetail } from "../../../features/checkouts/checkout-detail";
import { CheckoutForm } from "../../../features/checkouts/checkout-form";
import { CheckoutsTable } from "../../../features/checkouts/checkouts-table";
import { checkoutQuery } from "../../../features/checkouts/queries";

/** `/dashboard/{slug}/checkouts`: checkout sessions, open or done, filtered by status from the address. */
export function CheckoutsPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const [creating, { open, close }] = useDisclosure(false);
  return (
    <ListPage
      title="Checkouts"
      description="Payment pages opened for a product: each one's status, amount and customer."
      newAction={canWrite && { label: "New checkout", onClick: open }}
    >
      <CheckoutsTable organizationId={organizationId} slug={slug} />
      <FormModal opened={creating} onClose={close} title="New checkout">
        <CheckoutForm organizationId={organizationId} onDone={close} />
      </FormModal>
    </ListPage>
  );
}

/** `/dashboard/{slug}/checkouts/{id}`: one checkout, its amounts, customer and page. */
export function CheckoutPage() {
  const { organizationId, slug } = useBilling();
  const { checkoutId = "" } = useParams({ strict: false });
  const checkout = useQuery(checkoutQuery(organizationId, checkoutId));
  if (checkout.isPending) return <LoadingState label="Loading the checkout" />;
  if (checkout.isError) return <ErrorState error={checkout.error} onRetry={() => void checkout.refetch()} />;
  return <CheckoutDetail checkout={checkout.data} slug={slug} />;
}
