import { Button, Modal, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { CustomerDetail } from "../../../features/customers/customer-detail";
import { CustomerForm } from "../../../features/customers/customer-form";
import { CustomersTable } from "../../../features/customers/customers-table";
import { customerQuery } from "../../../features/customers/queries";

/** `/dashboard/{slug}/customers`: who bought, searchable by name or e-mail from the address. */
export function CustomersPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Customers"
        description="The people who bought from you, with their subscriptions, benefits and orders."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New customer
            </Button>
          )
        }
      />
      <CustomersTable organizationId={organizationId} slug={slug} />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New customer" size="lg">
        {creating && (
          <CustomerForm
            organizationId={organizationId}
            onDone={(created) => {
              setCreating(false);
              if (created)
                void navigate({
                  to: "/dashboard/$slug/customers/$customerId",
                  params: { slug, customerId: created.id },
                });
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

/** `/dashboard/{slug}/customers/{id}`: one customer, their state, orders and subscriptions. */
export function CustomerPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { customerId = "" } = useParams({ strict: false });
  const customer = useQuery(customerQuery(organizationId, customerId));
  if (customer.isPending) return <LoadingState label="Loading the customer" />;
  if (customer.isError) return <ErrorState error={customer.error} onRetry={() => void customer.refetch()} />;
  return (
    <CustomerDetail
      customer={customer.data}
      organizationId={organizationId}
      canWrite={canWrite}
      slug={slug}
    />
  );
}
