import { ActionIcon, Badge, Group, Text, Tooltip } from "@mantine/core";
import { IconExternalLink, IconLink } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { CheckoutLink } from "../../lib/v1";
import { CopyIcon } from "../billing/commerce";
import { formatDate } from "../billing/format";
import { ListView, useListParams } from "../billing/list";
import { EditableName, RowDeleteButton } from "../billing/row-actions";
import { checkoutLinksQuery, linkName } from "./queries";

/** The organization's checkout links, a page at a time by the address; names open the editor. */
export function CheckoutLinksTable({
  organizationId,
  canWrite,
  onEdit,
  onDelete,
}: {
  organizationId: string;
  canWrite: boolean;
  onEdit: (link: CheckoutLink) => void;
  onDelete: (link: CheckoutLink) => void;
}) {
  const { search, page, limit } = useListParams();
  const links = useQuery(checkoutLinksQuery(organizationId, { page, limit, sorting: search.sorting }));
  return (
    <ListView
      query={links}
      label="checkout links"
      caption="Checkout links"
      empty={{
        icon: IconLink,
        title: "No checkout links yet",
        children: canWrite
          ? "Create a link for one or more products and share it: buyers who follow it pay on Kassa's checkout page."
          : "An owner or admin of this organization creates checkout links.",
      }}
      columns={[
        {
          label: "Link",
          sort: "label",
          render: (l) => (
            <EditableName canWrite={canWrite} onEdit={() => onEdit(l)}>
              {linkName(l)}
            </EditableName>
          ),
        },
        { label: "Products", render: (l) => l.products.map((p) => p.name).join(", ") },
        {
          label: "Address",
          render: (l) => (
            <Group gap={4} wrap="nowrap">
              <Text size="sm" truncate maw={260} title={l.url}>
                {l.url}
              </Text>
              <CopyIcon value={l.url} label={`the address of ${linkName(l)}`} />
              <Tooltip label="Open the buyer's page" withArrow>
                <ActionIcon
                  component="a"
                  href={l.url}
                  target="_blank"
                  rel="noopener noreferrer"
                  variant="subtle"
                  color="gray"
                  aria-label={`Open ${linkName(l)}`}
                >
                  <IconExternalLink size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
          ),
        },
        {
          label: "Options",
          render: (l) => (
            <Group gap={4}>
              {l.allow_discount_codes && <Badge variant="light">Discount codes</Badge>}
              {l.require_billing_address && <Badge variant="light">Billing address</Badge>}
            </Group>
          ),
        },
        { label: "Created", sort: "created_at", render: (l) => formatDate(l.created_at) },
        {
          label: "Actions",
          render: (l) => (
            <RowDeleteButton show={canWrite} label={`Delete ${linkName(l)}`} onClick={() => onDelete(l)} />
          ),
        },
      ]}
    />
  );
}
