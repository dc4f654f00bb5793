import { Alert, Badge, Button, Group, Pagination, Stack, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { BenefitGrant } from "../../lib/v1";
import { formatDate } from "../billing/format";
import { benefitGrantsQuery, useRetryGrant } from "./queries";

const PAGE_SIZE = 20;

/** Where a grant stands, in a word a merchant reads at a glance. */
export function grantStatus(grant: BenefitGrant): { label: string; color: string } {
  if (grant.is_granted) return { label: "Granted", color: "green" };
  if (grant.is_revoked) return { label: "Revoked", color: "gray" };
  if (grant.error) return { label: "Failed", color: "red" };
  return { label: "Pending", color: "yellow" };
}

const customerLabel = (grant: BenefitGrant) => {
  const c = grant.customer as { email?: unknown; name?: unknown };
  return typeof c.email === "string" ? c.email : grant.customer_id;
};

/**
 * A benefit's grants: the customer, the status, when, and why a failed one failed, with a
 * retry for failed ones (for merchants who can write). A view: data and callbacks in.
 */
export function BenefitGrantsView({
  grants,
  canWrite,
  retrying,
  onRetry,
}: {
  grants: BenefitGrant[];
  canWrite: boolean;
  retrying: string | undefined;
  onRetry: (grant: BenefitGrant) => void;
}) {
  if (grants.length === 0)
    return (
      <Text size="sm" c="dimmed">
        Nobody has this benefit yet. It is granted when a customer pays for a product that includes it.
      </Text>
    );
  return (
    <Table striped aria-label="Grants">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Customer</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Since</Table.Th>
          <Table.Th>Actions</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {grants.map((g) => {
          const status = grantStatus(g);
          return (
            <Table.Tr key={g.id}>
              <Table.Td>{customerLabel(g)}</Table.Td>
              <Table.Td>
                <Stack gap={2}>
                  <Badge color={status.color} variant="light">
                    {status.label}
                  </Badge>
                  {g.error && !g.is_granted && (
                    <Text size="xs" c="red">
                      {g.error.message}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>{formatDate(g.granted_at ?? g.revoked_at ?? g.modified_at ?? g.created_at)}</Table.Td>
              <Table.Td>
                {canWrite && g.error && !g.is_granted && !g.is_revoked && (
                  <Button
                    size="xs"
                    variant="light"
                    loading={retrying === g.id}
                    onClick={() => onRetry(g)}
                    aria-label={`Retry the grant to ${customerLabel(g)}`}
                  >
                    Retry
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

/** The grants of one benefit, a page at a time, from the server. */
export function BenefitGrants({
  organizationId,
  benefitId,
  canWrite,
}: {
  organizationId: string;
  benefitId: string;
  canWrite: boolean;
}) {
  const [page, setPage] = useState(1);
  const retry = useRetryGrant(organizationId);
  // After a retry the outcome arrives from a job: look again for a little while.
  const grants = useQuery({
    ...benefitGrantsQuery(organizationId, benefitId, { page, limit: PAGE_SIZE }),
    refetchInterval: retry.isSuccess ? 2000 : false,
  });
  if (grants.isError)
    return (
      <Alert color="red" title="Could not load the grants">
        {grants.error.message}
      </Alert>
    );
  if (!grants.data) return <Text size="sm">Loading…</Text>;
  return (
    <Stack gap="sm">
      {retry.isError && (
        <Alert color="red" title="Could not retry">
          {retry.error.message}
        </Alert>
      )}
      {retry.isSuccess && (
        <Text size="sm" c="dimmed">
          The grant is being tried again; this list refreshes with the outcome.
        </Text>
      )}
      <BenefitGrantsView
        grants={grants.data.items}
        canWrite={canWrite}
        retrying={retry.isPending ? retry.variables : undefined}
        onRetry={(g) => retry.mutate(g.id)}
      />
      {grants.data.pagination.max_page > 1 && (
        <Group justify="flex-end">
          <Pagination total={grants.data.pagination.max_page} value={page} onChange={setPage} size="sm" />
        </Group>
      )}
    </Stack>
  );
}
