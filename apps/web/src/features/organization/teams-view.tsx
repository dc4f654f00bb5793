import { ActionIcon, Menu, Modal, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { IconDots, IconPencil, IconTrash, IconUsersGroup } from "@tabler/icons-react";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { AnchorLink } from "../../components/links";
import { EmptyState, PageHeader } from "../../components/states";
import type { ServerError } from "../../lib/auth-client";
import { type FullOrganization, formatDate, type Team } from "../../lib/organization";
import { TeamNameForm } from "./team-name-form";
import type { Viewer } from "./viewer";

export interface TeamsViewProps {
  organization: FullOrganization;
  viewer: Viewer;
  slug: string;
  onCreate: (name: string) => Promise<ServerError | null>;
  onRename: (team: Team, name: string) => Promise<ServerError | null>;
  onDelete: (team: Team) => Promise<ServerError | null>;
}

/** The teams; creating, renaming and deleting as the viewer's roles allow (the server's refusals in its words). */
export function TeamsView({ organization, viewer, slug, onCreate, onRename, onDelete }: TeamsViewProps) {
  const [renaming, setRenaming] = useState<Team | null>(null);
  const [deleting, setDeleting] = useState<Team | null>(null);
  const teams = organization.teams ?? [];
  const canCreate = viewer.can("team", "create");
  const canUpdate = viewer.can("team", "update");
  const canDelete = viewer.can("team", "delete");

  return (
    <>
      <PageHeader title="Teams" description="Group members of the organization into teams." />
      {canCreate && (
        <Paper withBorder radius="md" p={{ base: "md", sm: "lg" }}>
          <Stack gap="sm">
            <Title order={2} size="h4">
              Create a team
            </Title>
            <TeamNameForm submitLabel="Create team" onSubmit={({ name }) => onCreate(name)} />
          </Stack>
        </Paper>
      )}
      {teams.length === 0 ? (
        <EmptyState icon={IconUsersGroup} title="No teams">
          {canCreate ? "Create the first team above." : "Owners and admins create teams."}
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={420}>
          <Table verticalSpacing="sm" highlightOnHover aria-label="Teams">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Team</Table.Th>
                <Table.Th visibleFrom="xs">Created</Table.Th>
                <Table.Th w={48} aria-label="Actions" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {teams.map((team) => (
                <Table.Tr key={team.id}>
                  <Table.Td>
                    <AnchorLink
                      to="/dashboard/$slug/settings/teams/$teamId"
                      params={{ slug, teamId: team.id }}
                    >
                      {team.name}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td visibleFrom="xs">
                    <Text size="sm">{formatDate(team.createdAt)}</Text>
                  </Table.Td>
                  <Table.Td>
                    {(canUpdate || canDelete) && (
                      <Menu position="bottom-end">
                        <Menu.Target>
                          <ActionIcon
                            variant="subtle"
                            color="gray"
                            aria-label={`Actions for the team ${team.name}`}
                          >
                            <IconDots size={18} />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          {canUpdate && (
                            <Menu.Item
                              leftSection={<IconPencil size={16} />}
                              onClick={() => setRenaming(team)}
                            >
                              Rename
                            </Menu.Item>
                          )}
                          {canDelete && (
                            <Menu.Item
                              color="red"
                              leftSection={<IconTrash size={16} />}
                              onClick={() => setDeleting(team)}
                            >
                              Delete
                            </Menu.Item>
                          )}
                        </Menu.Dropdown>
                      </Menu>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {canDelete && teams.length > 0 && (
        <Text size="xs" c="dimmed">
          An organization keeps at least one team, and nobody can delete a team they belong to.
        </Text>
      )}
      <Modal opened={renaming !== null} onClose={() => setRenaming(null)} title="Rename the team" centered>
        {renaming && (
          <TeamNameForm
            defaultName={renaming.name}
            label="New name"
            submitLabel="Rename"
            onCancel={() => setRenaming(null)}
            onSubmit={async ({ name }) => {
              const refusal = await onRename(renaming, name);
              if (!refusal) setRenaming(null);
              return refusal;
            }}
          />
        )}
      </Modal>
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title={`Delete the team ${deleting?.name ?? ""}?`}
        confirmLabel="Delete team"
        onConfirm={() => (deleting ? onDelete(deleting) : Promise.resolve(null))}
      >
        Its members stay in the organization; only the team goes.
      </ConfirmDialog>
    </>
  );
}
