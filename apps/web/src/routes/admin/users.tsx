import { lengthRules } from "@kassa/contracts";
import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  Pagination,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { IconSearch, IconUserPlus } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { CreateUserForm } from "../../features/admin/admin-forms";
import { ADMIN_PAGE_SIZE, adminUsersQuery, type UserSearch } from "../../features/admin/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { formatDate } from "../../lib/format";
import { usePublicConfig } from "../../lib/queries";

export function AdminUsersPage() {
  const search: UserSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const users = useQuery(adminUsersQuery(search));
  const config = usePublicConfig();
  const rules = useMemo(() => lengthRules(config.data), [config.data]);
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [text, setText] = useState(search.q ?? "");
  const by = search.by ?? "email";
  const page = search.page ?? 1;

  const setSearch = (next: UserSearch) => void navigate({ to: "/admin", search: next, replace: true });
  const searchLater = useDebouncedCallback(
    (q: string) => setSearch({ q: q || undefined, by, page: undefined }),
    300,
  );

  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone with an account on this Kassa server."
        actions={
          <Button leftSection={<IconUserPlus size={18} aria-hidden />} onClick={() => setCreating(true)}>
            Create user
          </Button>
        }
      />
      <SettingsSection title="All users">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput
            label="Search"
            placeholder={by === "email" ? "part of an e-mail address" : "part of a name"}
            leftSection={<IconSearch size={16} aria-hidden />}
            value={text}
            onChange={(e) => {
              setText(e.currentTarget.value);
              searchLater(e.currentTarget.value.trim());
            }}
            style={{ flex: 1, minWidth: 200 }}
            type="search"
          />
          <NativeSelect
            label="Search by"
            data={[
              { value: "email", label: "E-mail" },
              { value: "name", label: "Name" },
            ]}
            value={by}
            onChange={(e) =>
              setSearch({
                q: search.q,
                by: e.currentTarget.value === "name" ? "name" : "email",
                page: undefined,
              })
            }
          />
        </Group>
        <QueryState query={users} label="the users">
          {({ users: rows, total }) =>
            rows.length === 0 ? (
              <Text c="dimmed" size="sm">
                {search.q ? `No user matches “${search.q}”.` : "No users yet."}
              </Text>
            ) : (
              <>
                <Table.ScrollContainer minWidth={640}>
                  <Table verticalSpacing="xs" striped highlightOnHover aria-label="Users">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Name</Table.Th>
                        <Table.Th>E-mail</Table.Th>
                        <Table.Th>Role</Table.Th>
                        <Table.Th>Status</Table.Th>
                        <Table.Th>Joined</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {rows.map((u) => (
                        <Table.Tr key={u.id}>
                          <Table.Td>
                            <Anchor
                              renderRoot={(props) => (
                                <Link {...props} to="/admin/users/$userId" params={{ userId: u.id }} />
                              )}
                            >
                              {u.name || "(no name)"}
                            </Anchor>
                          </Table.Td>
                          <Table.Td>{u.email}</Table.Td>
                          <Table.Td>
                            <Badge variant="light" color={u.role === "admin" ? "indigo" : "gray"}>
                              {u.role ?? "user"}
                            </Badge>
                          </Table.Td>
                          <Table.Td>
                            {u.banned ? (
                              <Badge color="red">banned</Badge>
                            ) : u.emailVerified ? (
                              <Badge color="green" variant="light">
                                active
                              </Badge>
                            ) : (
                              <Badge color="orange" variant="light">
                                unverified
                              </Badge>
                            )}
                          </Table.Td>
                          <Table.Td>{formatDate(u.createdAt)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
                <Group justify="space-between" gap="sm">
                  <Text size="sm" c="dimmed">
                    {total} {total === 1 ? "user" : "users"}
                  </Text>
                  {total > ADMIN_PAGE_SIZE && (
                    <Pagination
                      total={Math.ceil(total / ADMIN_PAGE_SIZE)}
                      value={page}
                      onChange={(p) => setSearch({ ...search, page: p === 1 ? undefined : p })}
                      getControlProps={(control) => ({ "aria-label": `${control} page` })}
                      getItemProps={(p) => ({ "aria-label": `Page ${p}` })}
                    />
                  )}
                </Group>
              </>
            )
          }
        </QueryState>
      </SettingsSection>
      <Modal opened={creating} onClose={() => setCreating(false)} title="Create user" centered>
        <CreateUserForm
          rules={rules}
          onSubmit={async ({ name, email, password, role }) => {
            const refusal = await refusalOf(() =>
              authClient.admin.createUser({ name, email, password, role }),
            );
            if (refusal) return refusal;
            await queryClient.invalidateQueries({ queryKey: ["admin", "users"] });
            setCreating(false);
            return null;
          }}
        />
      </Modal>
    </>
  );
}
