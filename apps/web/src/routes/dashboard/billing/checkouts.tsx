import { Button, Modal, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { CheckoutDetail } from "../../../features/checkouts/checkout-detail";
import { CheckoutForm } from "../../../features/checkouts/checkout-form";
import { CheckoutsTable } from "../../../features/checkouts/checkouts-table";
import { checkoutQuery } from "../../../features/checkouts/queries";

/** `/dashboard/{slug}/checkouts`: checkout sessions, open or done, filtered by status from the address. */
export function CheckoutsPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const [creating, setCreating] = useState(false);
  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Checkouts"
        description="Payment pages opened for a product: each one's status, amount and customer."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New checkout
            </Button>
          )
        }
      />
      <CheckoutsTable organizationId={organizationId} slug={slug} />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New checkout" size="lg">
        {creating && <CheckoutForm organizationId={organizationId} onDone={() => setCreating(false)} />}
      </Modal>
    </Stack>
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
