import { zodResolver } from "@hookform/resolvers/zod";
import {
  isSoleOwner,
  type MemberRolesValues,
  memberRolesSchema,
  ORGANIZATION_ROLES,
  type OrganizationRole,
  parseRoles,
  roleLabels,
} from "@kassa/contracts/organization";
import {
  ActionIcon,
  Alert,
  Avatar,
  Badge,
  Button,
  Checkbox,
  Group,
  Menu,
  Modal,
  Stack,
  Table,
  Text,
  VisuallyHidden,
} from "@mantine/core";
import { IconDots, IconLogout, IconShieldCog, IconUserMinus } from "@tabler/icons-react";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { ConfirmDialog } from "../../components/confirm-dialog";
import type { ServerError } from "../../lib/auth-client";
import { formatDate, type Member } from "../../lib/organization";
import { applyServerError } from "../../lib/server-errors";
import type { Viewer } from "./viewer";

const ROLE_FIELD_BY_CODE = {
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: "roles",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: "roles",
  MEMBER_NOT_FOUND: "roles",
} as const;

const ROLE_HELP: Record<OrganizationRole, string> = {
  owner: "Everything, including deleting the organization.",
  admin: "Settings, members, invitations and teams; not deleting the organization.",
  member: "Sees the organization; changes nothing in its settings.",
};

export interface MembersTableProps {
  members: Member[];
  viewer: Viewer;
  onChangeRoles: (member: Member, roles: OrganizationRole[]) => Promise<ServerError | null>;
  onRemove: (member: Member) => Promise<ServerError | null>;
  onLeave: () => Promise<ServerError | null>;
}

/** What the viewer may do to one member: spec section 6, and only an owner touches an owner. */
export function memberActions(member: Member, viewer: Viewer, members: Member[]) {
  const self = member.userId === viewer.userId;
  const targetIsOwner = parseRoles(member.role).includes("owner");
  const viewerIsOwner = viewer.roles.includes("owner");
  const ownerRuleAllows = !targetIsOwner || viewerIsOwner;
  return {
    changeRoles: viewer.can("member", "update") && ownerRuleAllows,
    remove: !self && viewer.can("member", "delete") && ownerRuleAllows && !isSoleOwner(member, members),
  };
}

/** The organization's members with their roles; role changes, removal and leaving as the viewer's roles allow. */
export function MembersTable({ members, viewer, onChangeRoles, onRemove, onLeave }: MembersTableProps) {
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [leaving, setLeaving] = useState(false);
  const soleOwner = viewer.member ? isSoleOwner(viewer.member, members) : false;

  return (
    <Stack gap="md">
      <Table.ScrollContainer minWidth={520}>
        <Table verticalSpacing="sm" highlightOnHover aria-label="Members">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Member</Table.Th>
              <Table.Th>Roles</Table.Th>
              <Table.Th visibleFrom="sm">Joined</Table.Th>
              <Table.Th w={48}>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.map((m) => {
              const self = m.userId === viewer.userId;
              const actions = memberActions(m, viewer, members);
              return (
                <Table.Tr key={m.id}>
                  <Table.Td>
                    <Group gap="sm" wrap="nowrap">
                      <Avatar src={m.user.image ?? null} name={m.user.name} color="initials" size={32} />
                      <Stack gap={0} miw={0}>
                        <Group gap={6}>
                          <Text size="sm" fw={500}>
                            {m.user.name}
                          </Text>
                          {self && (
                            <Badge size="xs" variant="outline">
                              You
                            </Badge>
                          )}
                        </Group>
                        <Text size="xs" c="dimmed" truncate>
                          {m.user.email}
                        </Text>
                      </Stack>
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {parseRoles(m.role).map((r) => (
                        <Badge
                          key={r}
                          variant="light"
                          color={r === "owner" ? "indigo" : r === "admin" ? "teal" : "gray"}
                        >
                          {roleLabels[r as OrganizationRole] ?? r}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">
                    <Text size="sm">{formatDate(m.createdAt)}</Text>
                  </Table.Td>
                  <Table.Td>
                    {(actions.changeRoles || actions.remove) && (
                      <Menu position="bottom-end">
                        <Menu.Target>
                          <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${m.user.name}`}>
                            <IconDots size={18} />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          {actions.changeRoles && (
                            <Menu.Item
                              leftSection={<IconShieldCog size={16} />}
                              onClick={() => setEditing(m)}
                            >
                              Change roles
                            </Menu.Item>
                          )}
                          {actions.remove && (
                            <Menu.Item
                              color="red"
                              leftSection={<IconUserMinus size={16} />}
                              onClick={() => setRemoving(m)}
                            >
                              Remove from organization
                            </Menu.Item>
                          )}
                        </Menu.Dropdown>
                      </Menu>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>

      {viewer.member && (
        <Stack gap="xs" align="flex-start">
          {soleOwner && (
            <Alert color="yellow" variant="light" title="You are the only owner">
              An organization always keeps an owner: make another member an owner before you leave, or delete
              the organization.
            </Alert>
          )}
          <Button
            variant="default"
            color="red"
            leftSection={<IconLogout size={16} />}
            onClick={() => setLeaving(true)}
            disabled={soleOwner}
          >
            Leave organization
          </Button>
        </Stack>
      )}

      {editing && (
        <RolesDialog
          member={editing}
          viewerIsOwner={viewer.roles.includes("owner")}
          onClose={() => setEditing(null)}
          onSubmit={(roles) => onChangeRoles(editing, roles)}
        />
      )}
      <ConfirmDialog
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={`Remove ${removing?.user.name ?? "member"}?`}
        confirmLabel="Remove"
        onConfirm={() => (removing ? onRemove(removing) : Promise.resolve(null))}
      >
        {removing?.user.name} ({removing?.user.email}) loses access to this organization at once.
      </ConfirmDialog>
      <ConfirmDialog
        opened={leaving}
        onClose={() => setLeaving(false)}
        title="Leave this organization?"
        confirmLabel="Leave"
        onConfirm={onLeave}
      >
        You lose access to it at once. An owner or admin can invite you again.
      </ConfirmDialog>
    </Stack>
  );
}

function RolesDialog({
  member,
  viewerIsOwner,
  onClose,
  onSubmit,
}: {
  member: Member;
  viewerIsOwner: boolean;
  onClose: () => void;
  onSubmit: (roles: OrganizationRole[]) => Promise<ServerError | null>;
}) {
  const {
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<MemberRolesValues>({
    resolver: zodResolver(memberRolesSchema),
    defaultValues: {
      roles: parseRoles(member.role).filter((r): r is OrganizationRole =>
        (ORGANIZATION_ROLES as readonly string[]).includes(r),
      ),
    },
  });
  const submit = handleSubmit(async ({ roles }) => {
    const error = await onSubmit(roles);
    if (error) applyServerError(error, setError, ROLE_FIELD_BY_CODE);
    else onClose();
  });
  return (
    <Modal opened onClose={onClose} title={`Roles of ${member.user.name}`} centered>
      <form onSubmit={submit} noValidate aria-label={`Roles of ${member.user.name}`}>
        <Stack gap="md">
          {errors.root?.server && (
            <Alert color="red" role="alert" title="Could not change the roles">
              {errors.root.server.message}
            </Alert>
          )}
          <Controller
            control={control}
            name="roles"
            render={({ field }) => (
              <Checkbox.Group
                label="Roles"
                description="Several may be given; any one allowing an action suffices."
                value={field.value}
                onChange={(v) => field.onChange(v as OrganizationRole[])}
                error={errors.roles?.message}
              >
                <Stack gap="xs" mt="xs">
                  {ORGANIZATION_ROLES.map((r) => (
                    <Checkbox
                      key={r}
                      value={r}
                      label={roleLabels[r]}
                      description={
                        r === "owner" && !viewerIsOwner
                          ? "Only an owner can make someone an owner."
                          : ROLE_HELP[r]
                      }
                      disabled={r === "owner" && !viewerIsOwner}
                    />
                  ))}
                </Stack>
              </Checkbox.Group>
            )}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={isSubmitting}>
              Save roles
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
