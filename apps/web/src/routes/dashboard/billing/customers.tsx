import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { ListPage } from "../../../features/billing/list-page";
import { FormModal } from "../../../features/billing/row-actions";
import { CustomerDetail } from "../../../features/customers/customer-detail";
import { CustomerForm } from "../../../features/customers/customer-form";
import { CustomersTable } from "../../../features/customers/customers-table";
import { customerQuery } from "../../../features/customers/queries";

/** `/dashboard/{slug}/customers`: who bought, searchable by name or e-mail from the address. */
export function CustomersPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const [creating, { open, close }] = useDisclosure(false);
  const navigate = useNavigate();
  return (
    <ListPage
      title="Customers"
      description="The people who bought from you, with their subscriptions, benefits and orders."
      newAction={canWrite && { label: "New customer", onClick: open }}
    >
      <CustomersTable organizationId={organizationId} slug={slug} />
      <FormModal opened={creating} onClose={close} title="New customer">
        <CustomerForm
          organizationId={organizationId}
          onDone={(created) => {
            close();
            if (created)
              void navigate({
                to: "/dashboard/$slug/customers/$customerId",
                params: { slug, customerId: created.id },
              });
          }}
        />
      </FormModal>
    </ListPage>
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
