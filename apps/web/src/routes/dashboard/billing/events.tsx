import { Stack } from "@mantine/core";
import { PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { EventsExplorer } from "../../../features/events/events-explorer";

/** `/dashboard/{slug}/events`: the usage events the organization's apps sent, filtered from the address. */
export function EventsPage() {
  const { organizationId, slug } = useBilling();
  return (
    <Stack gap="lg" maw={1200}>
      <PageHeader
        title="Events"
        description="The usage events your apps send: what meters count and customers are billed for."
      />
      <EventsExplorer organizationId={organizationId} slug={slug} />
    </Stack>
  );
}
