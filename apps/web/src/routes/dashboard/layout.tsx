import {
  AppShell,
  Avatar,
  Burger,
  Group,
  Menu,
  NavLink,
  Skeleton,
  Stack,
  Text,
  UnstyledButton,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import {
  IconApi,
  IconCheck,
  IconChevronDown,
  IconExternalLink,
  IconKey,
  IconLogout,
  IconPlus,
  IconSelector,
  IconShieldLock,
  IconUserCircle,
} from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useLocation, useNavigate, useParams } from "@tanstack/react-router";
import { Brand, ThemeToggle } from "../../components/brand";
import { API_REFERENCE_PATH } from "../../components/links";
import { OrganizationAvatar } from "../../components/organization-avatar";
import { ImpersonationBanner } from "../../features/admin/impersonation-banner";
import { isPlatformAdmin } from "../../features/admin/roles";
import { useCurrentOrganization } from "../../features/organization/viewer";
import { SandboxBanner } from "../../features/test-clock/sandbox-banner";
import { authClient, refusalOf } from "../../lib/auth-client";
import { type Organization, organizationsQuery } from "../../lib/organization";
import { sessionQuery } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";
import { organizationNavigation } from "./navigation";

/**
 * The signed-in shell: a header with the brand, the organization switcher, the theme switch
 * and the user menu; beside the page, the organization's navigation (a drawer behind the
 * burger on a phone). Pages render in the `Outlet`.
 */
export function DashboardLayout() {
  const session = useQuery(sessionQuery);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { slug } = useParams({ strict: false });
  const [navOpen, nav] = useDisclosure(false);
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
    <AppShell
      header={{ height: 60 }}
      navbar={slug ? { width: 240, breakpoint: "sm", collapsed: { mobile: !navOpen } } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="sm" wrap="nowrap" miw={0}>
            {slug && (
              <Burger
                opened={navOpen}
                onClick={nav.toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label={navOpen ? "Close the navigation" : "Open the navigation"}
              />
            )}
            <Link
              to="/dashboard"
              aria-label="Kassa dashboard"
              style={{ color: "inherit", textDecoration: "none" }}
            >
              <Brand />
            </Link>
            <OrganizationSwitcher currentSlug={slug} />
          </Group>
          <Group gap="xs" wrap="nowrap">
            <ThemeToggle />
            {user && (
              <Menu position="bottom-end" width={240}>
                <Menu.Target>
                  <UnstyledButton aria-label={`Account menu for ${user.name}`}>
                    <Group gap={8} wrap="nowrap">
                      <Avatar src={user.image ?? null} name={user.name} color="initials" size={32} />
                      <Text size="sm" fw={500} visibleFrom="md">
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
      {slug && (
        <AppShell.Navbar p="xs" aria-label="Organization">
          {/* A native scroll container: Mantine's ScrollArea (custom scrollbars, observers and
              measuring) was the largest part of the shell's first render, and the list rarely
              scrolls at all. */}
          <div data-testid="navigation-scroll" style={{ flex: 1, minHeight: 0, overflowY: "auto" }}>
            <OrganizationNav slug={slug} onNavigate={nav.close} />
          </div>
        </AppShell.Navbar>
      )}
      <AppShell.Main>
        <ImpersonationBanner />
        {slug && <SandboxBanner />}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

function OrganizationNav({ slug, onNavigate }: { slug: string; onNavigate: () => void }) {
  const { pathname } = useLocation();
  const { viewer } = useCurrentOrganization();
  const base = `/dashboard/${slug}`;
  // Entries the viewer's roles do not grant are left out (none while the roles are loading).
  const sections = organizationNavigation
    .map((section) => ({
      ...section,
      items: section.items.filter(
        (item) =>
          !item.requires || (viewer?.can(item.requires.resource, item.requires.action as never) ?? false),
      ),
    }))
    .filter((section) => section.items.length > 0);
  return (
    <Stack gap="sm">
      {sections.map((section, i) => (
        <Stack key={section.label ?? i} gap={2}>
          {section.label && (
            <Text size="xs" fw={600} c="dimmed" tt="uppercase" px="sm" pt="xs">
              {section.label}
            </Text>
          )}
          {section.items.map((item) => {
            const href = `${base}${item.path}`;
            const active = item.exact
              ? pathname.replace(/\/$/, "") === href
              : pathname === href || pathname.startsWith(`${href}/`);
            const Icon = item.icon;
            return (
              <NavLink
                key={item.path}
                component={Link}
                to={href}
                activeOptions={{ exact: item.exact === true, includeSearch: false }}
                label={item.label}
                leftSection={<Icon size={18} aria-hidden />}
                active={active}
                aria-current={active ? "page" : undefined}
                onClick={onNavigate}
              />
            );
          })}
        </Stack>
      ))}
      <NavLink
        href={API_REFERENCE_PATH}
        target="_blank"
        rel="noopener"
        label="API reference"
        leftSection={<IconApi size={18} aria-hidden />}
        rightSection={<IconExternalLink size={14} aria-hidden />}
      />
    </Stack>
  );
}

/** The organization in the address, with a menu of the others; choosing one opens it (and makes it active). */
function OrganizationSwitcher({ currentSlug }: { currentSlug: string | undefined }) {
  const organizations = useQuery(organizationsQuery);
  const navigate = useNavigate();
  if (organizations.isPending) return <Skeleton h={28} w={140} aria-label="Loading organizations" />;
  const list: Organization[] = organizations.data ?? [];
  const current = list.find((o) => o.slug === currentSlug);
  if (list.length === 0 && !current) return null;

  return (
    <Menu position="bottom-start" width={260}>
      <Menu.Target>
        <UnstyledButton
          aria-label={
            current ? `Organization: ${current.name}. Switch organization` : "Choose an organization"
          }
          px={8}
          py={4}
          style={{
            borderRadius: "var(--mantine-radius-sm)",
            border: "1px solid var(--mantine-color-default-border)",
          }}
          miw={0}
        >
          <Group gap={6} wrap="nowrap" miw={0}>
            {current && <OrganizationAvatar src={current.logo} name={current.name} size={22} radius="sm" />}
            <Text size="sm" fw={500} truncate maw={{ base: 110, sm: 200 }}>
              {current?.name ?? "Organizations"}
            </Text>
            <IconSelector size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Organizations</Menu.Label>
        {list.map((o) => (
          <Menu.Item
            key={o.id}
            leftSection={<OrganizationAvatar src={o.logo} name={o.name} size={22} radius="sm" />}
            rightSection={o.slug === currentSlug ? <IconCheck size={16} aria-label="current" /> : null}
            onClick={() => void navigate({ to: "/dashboard/$slug", params: { slug: o.slug } })}
          >
            {o.name}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item
          leftSection={<IconPlus size={16} />}
          onClick={() => void navigate({ to: "/dashboard/new" })}
        >
          Create organization
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
