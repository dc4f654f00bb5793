import { useBilling } from "../../../features/billing/list";
import { ListPage } from "../../../features/billing/list-page";
import { EventsExplorer } from "../../../features/events/events-explorer";

/** `/dashboard/{slug}/events`: the usage events the organization's apps sent, filtered from the address. */
export function EventsPage() {
  const { organizationId, slug } = useBilling();
  return (
    <ListPage
      title="Events"
      description="The usage events your apps send: what meters count and customers are billed for."
      maw={1200}
    >
      <EventsExplorer organizationId={organizationId} slug={slug} />
    </ListPage>
  );
}
