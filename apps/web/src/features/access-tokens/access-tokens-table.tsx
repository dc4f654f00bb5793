import { ActionIcon, Text } from "@mantine/core";
import { IconKey, IconTrash } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { AccessToken } from "../../lib/v1";
import { formatDate } from "../billing/format";
import { ListView, useListParams } from "../billing/list";
import { accessTokensQuery } from "./queries";

/** The organization's access tokens, a page at a time; who may write gets a revoke button. */
export function AccessTokensTable({
  organizationId,
  canWrite,
  onRevoke,
}: {
  organizationId: string;
  canWrite: boolean;
  onRevoke: (token: AccessToken) => void;
}) {
  const { page, limit, search } = useListParams();
  const tokens = useQuery(accessTokensQuery(organizationId, { page, limit, sorting: search.sorting }));
  return (
    <ListView
      query={tokens}
      label="tokens"
      caption="Access tokens"
      empty={{
        icon: IconKey,
        title: "No access tokens yet",
        children: canWrite
          ? "Create a token with the scopes your integration needs, and an expiry."
          : "An owner or admin creates access tokens.",
      }}
      columns={[
        { label: "Name", render: (t) => t.comment },
        { label: "Scopes", render: (t) => <Text size="sm">{t.scopes.join(", ")}</Text> },
        { label: "Expires", render: (t) => (t.expires_at ? formatDate(t.expires_at) : "Never") },
        { label: "Last used", render: (t) => (t.last_used_at ? formatDate(t.last_used_at) : "Never") },
        { label: "Created", sort: "created_at", render: (t) => formatDate(t.created_at) },
        {
          label: "Actions",
          render: (t) =>
            canWrite && (
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Revoke ${t.comment}`}
                onClick={() => onRevoke(t)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            ),
        },
      ]}
    />
  );
}
