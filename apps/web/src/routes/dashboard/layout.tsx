import { AppShell, Avatar, Group, Menu, Text, UnstyledButton } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconChevronDown, IconKey, IconLogout, IconShieldLock, IconUserCircle } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useNavigate } from "@tanstack/react-router";
import { Brand, ThemeToggle } from "../../components/brand";
import { ImpersonationBanner } from "../../features/admin/impersonation-banner";
import { isPlatformAdmin } from "../../features/admin/roles";
import { authClient, refusalOf } from "../../lib/auth-client";
import { sessionQuery } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";

/** The signed-in shell: header with the brand, the theme switch and the user menu. */
export function DashboardLayout() {
  const session = useQuery(sessionQuery);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const user = session.data?.user;

  const signOut = async () => {
    const refusal = await refusalOf(() => authClient.signOut());
    if (refusal) {
      notifications.show({ color: "red", title: "Could not sign out", message: serverErrorMessage(refusal) });
      return;
    }
    queryClient.setQueryData(sessionQuery.queryKey, null);
    queryClient.removeQueries({
      predicate: (q) => q.queryKey[0] !== "public-config" && q.queryKey[0] !== "session",
    });
    await navigate({ to: "/sign-in" });
  };

  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Brand />
          <Group gap="xs" wrap="nowrap">
            <ThemeToggle />
            {user && (
              <Menu position="bottom-end" width={240}>
                <Menu.Target>
                  <UnstyledButton aria-label={`Account menu for ${user.name}`}>
                    <Group gap={8} wrap="nowrap">
                      <Avatar src={user.image ?? null} name={user.name} color="initials" size={32} />
                      <Text size="sm" fw={500} visibleFrom="xs">
                        {user.name}
                      </Text>
                      <IconChevronDown size={14} aria-hidden />
                    </Group>
                  </UnstyledButton>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label>{user.email}</Menu.Label>
                  <Menu.Item component={Link} to="/account" leftSection={<IconUserCircle size={16} />}>
                    Account
                  </Menu.Item>
                  <Menu.Item component={Link} to="/account/api-keys" leftSection={<IconKey size={16} />}>
                    API keys
                  </Menu.Item>
                  {isPlatformAdmin(user) && (
                    <Menu.Item component={Link} to="/admin" leftSection={<IconShieldLock size={16} />}>
                      Admin
                    </Menu.Item>
                  )}
                  <Menu.Divider />
                  <Menu.Item leftSection={<IconLogout size={16} />} onClick={() => void signOut()}>
                    Sign out
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            )}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <ImpersonationBanner />
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
