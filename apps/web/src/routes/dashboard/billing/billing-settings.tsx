import { useQuery } from "@tanstack/react-query";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { BillingSettingsForm } from "../../../features/billing-settings/billing-settings-form";
import { billingOrganizationQuery } from "../../../features/billing-settings/queries";

/** `/dashboard/{slug}/settings/billing`: the organization's billing profile and subscription rules. */
export function BillingSettingsPage() {
  const { organizationId } = useBilling();
  const org = useQuery(billingOrganizationQuery(organizationId));
  if (org.isPending) return <LoadingState label="Loading billing settings" />;
  if (org.isError) return <ErrorState error={org.error} onRetry={() => void org.refetch()} />;
  return <BillingSettingsForm key={org.data.modified_at ?? org.data.id} org={org.data} />;
}
