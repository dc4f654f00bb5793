import type { InviteMemberValues } from "@kassa/contracts/organization";
import { ActionIcon, Badge, Group, Paper, Stack, Table, Text, Title, Tooltip } from "@mantine/core";
import { IconMailOff, IconX } from "@tabler/icons-react";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { EmptyState, ErrorState, LoadingState, PageHeader } from "../../components/states";
import type { ServerError } from "../../lib/auth-client";
import { type FullOrganization, formatDateTime, type Invitation, toDate } from "../../lib/organization";
import { InviteForm } from "./invite-form";
import { roleNames } from "./roles";
import type { Viewer } from "./viewer";

const STATUS_COLORS = { pending: "blue", accepted: "green", rejected: "orange", canceled: "gray" } as const;

export interface InvitationsViewProps {
  organization: FullOrganization;
  viewer: Viewer;
  invitations: {
    isPending: boolean;
    isError: boolean;
    error: unknown;
    data: Invitation[] | undefined;
    refetch: () => unknown;
  };
  onInvite: (values: InviteMemberValues) => Promise<ServerError | null>;
  onCancel: (invitation: Invitation) => Promise<ServerError | null>;
}

/** The invite form (owners and admins) and every invitation with its status, expiry and cancel. */
export function InvitationsView({
  organization,
  viewer,
  invitations,
  onInvite: invite,
  onCancel,
}: InvitationsViewProps) {
  const [canceling, setCanceling] = useState<Invitation | null>(null);
  const teams = organization.teams ?? [];
  const teamName = (id: string | null | undefined) => teams.find((t) => t.id === id)?.name;

  const list = [...(invitations.data ?? [])].sort(
    (a, b) => toDate(b.createdAt ?? b.expiresAt).getTime() - toDate(a.createdAt ?? a.expiresAt).getTime(),
  );
  const now = Date.now();

  return (
    <>
      <PageHeader title="Invitations" description="People invited by e-mail join when they accept." />
      {viewer.can("invitation", "create") ? (
        <Paper withBorder radius="md" p={{ base: "md", sm: "lg" }}>
          <Stack gap="sm">
            <Title order={2} size="h4">
              Invite a member
            </Title>
            <InviteForm teams={teams} viewerIsOwner={viewer.roles.includes("owner")} onSubmit={invite} />
          </Stack>
        </Paper>
      ) : (
        <Text size="sm" c="dimmed">
          Only owners and admins can invite people.
        </Text>
      )}
      <Stack gap="sm">
        <Title order={2} size="h4">
          Sent invitations
        </Title>
        {invitations.isPending ? (
          <LoadingState label="Loading invitations" />
        ) : invitations.isError ? (
          <ErrorState error={invitations.error} onRetry={() => void invitations.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState icon={IconMailOff} title="No invitations yet">
            {viewer.can("invitation", "create")
              ? "Invite someone above: they get a mail with a link to join."
              : "Owners and admins can invite people."}
          </EmptyState>
        ) : (
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="sm" aria-label="Invitations">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>E-mail</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th w={48} aria-label="Actions" />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((inv) => {
                  const expired = inv.status === "pending" && toDate(inv.expiresAt).getTime() < now;
                  const team = teamName(inv.teamId);
                  return (
                    <Table.Tr key={inv.id}>
                      <Table.Td>
                        <Text size="sm">{inv.email}</Text>
                        {team && (
                          <Text size="xs" c="dimmed">
                            Team: {team}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{roleNames(inv.role)}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="light" color={expired ? "red" : STATUS_COLORS[inv.status]}>
                          {expired ? "expired" : inv.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{formatDateTime(inv.expiresAt)}</Text>
                      </Table.Td>
                      <Table.Td>
                        {inv.status === "pending" && viewer.can("invitation", "cancel") && (
                          <Tooltip label="Cancel the invitation">
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              aria-label={`Cancel the invitation of ${inv.email}`}
                              onClick={() => setCanceling(inv)}
                            >
                              <IconX size={18} />
                            </ActionIcon>
                          </Tooltip>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      <ConfirmDialog
        opened={canceling !== null}
        onClose={() => setCanceling(null)}
        title="Cancel this invitation?"
        confirmLabel="Cancel invitation"
        onConfirm={() => (canceling ? onCancel(canceling) : Promise.resolve(null))}
      >
        <Group gap={4}>The link mailed to {canceling?.email} stops working.</Group>
      </ConfirmDialog>
    </>
  );
}
