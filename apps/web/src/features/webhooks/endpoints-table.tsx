import { Badge, Text } from "@mantine/core";
import { IconWebhook } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink } from "../../components/links";
import { formatDate } from "../billing/format";
import { ListView, useListParams } from "../billing/list";
import { endpointsQuery } from "./queries";

/** The organization's webhook endpoints, a page at a time; each opens its page. */
export function EndpointsTable({
  organizationId,
  canWrite,
  slug,
}: {
  organizationId: string;
  canWrite: boolean;
  slug: string;
}) {
  const { page, limit } = useListParams();
  const endpoints = useQuery(endpointsQuery(organizationId, { page, limit }));
  return (
    <ListView
      query={endpoints}
      label="endpoints"
      caption="Webhook endpoints"
      empty={{
        icon: IconWebhook,
        title: "No endpoints yet",
        children: canWrite
          ? "Add the address of your server and the events it wants; verify each delivery with its signing secret."
          : "An owner or admin of this organization adds webhook endpoints.",
      }}
      columns={[
        {
          label: "Endpoint",
          render: (e) => (
            <AnchorLink
              to="/dashboard/$slug/settings/webhooks/$endpointId"
              params={{ slug, endpointId: e.id }}
            >
              {e.name ?? e.url}
            </AnchorLink>
          ),
        },
        {
          label: "URL",
          render: (e) => (
            <Text size="sm" style={{ wordBreak: "break-all" }}>
              {e.url}
            </Text>
          ),
        },
        { label: "Events", render: (e) => e.events.length },
        {
          label: "Status",
          render: (e) => (
            <Badge color={e.enabled ? "green" : "gray"}>{e.enabled ? "Enabled" : "Disabled"}</Badge>
          ),
        },
        { label: "Created", render: (e) => formatDate(e.created_at) },
      ]}
    />
  );
}
