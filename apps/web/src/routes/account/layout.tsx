import { Button, Container, Grid, NavLink, Paper, ScrollArea, Stack } from "@mantine/core";
import { IconDevices, IconKey, IconLink, IconLock, IconTrash, IconUserCircle } from "@tabler/icons-react";
import { Link, Outlet, useRouterState } from "@tanstack/react-router";
import { useEffect, useRef } from "react";

const SECTIONS = [
  { to: "/account", label: "Profile", icon: IconUserCircle },
  { to: "/account/password", label: "Password", icon: IconLock },
  { to: "/account/linked-accounts", label: "Linked accounts", icon: IconLink },
  { to: "/account/sessions", label: "Sessions", icon: IconDevices },
  { to: "/account/api-keys", label: "API keys", icon: IconKey },
  { to: "/account/delete", label: "Delete account", icon: IconTrash },
] as const;

/** The account pages: a section list beside the page (a scrolling row of buttons on a phone). */
export function AccountLayout() {
  const pathname = useRouterState({ select: (s) => s.location.pathname.replace(/\/+$/, "") || "/" });
  const row = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // On a phone the sections are a scrolling row: bring the current one into view.
    row.current?.querySelector<HTMLElement>(`[data-section="${pathname}"]`)?.scrollIntoView?.({
      block: "nearest",
      inline: "center",
    });
  }, [pathname]);
  return (
    <Container size="lg" px={0}>
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, sm: 3 }}>
          <nav aria-label="Account">
            <Paper withBorder radius="md" p={4} visibleFrom="sm">
              {SECTIONS.map(({ to, label, icon: Icon }) => (
                <NavLink
                  key={to}
                  component={Link}
                  to={to}
                  activeOptions={{ exact: true }}
                  label={label}
                  active={pathname === to}
                  aria-current={pathname === to ? "page" : undefined}
                  leftSection={<Icon size={18} aria-hidden />}
                  color={to === "/account/delete" ? "red" : undefined}
                />
              ))}
            </Paper>
            <ScrollArea hiddenFrom="sm" type="never">
              <Stack gap={0}>
                <div ref={row} style={{ display: "flex", gap: 8, paddingBottom: 4 }}>
                  {SECTIONS.map(({ to, label }) => (
                    <Button
                      key={to}
                      component={Link}
                      to={to}
                      activeOptions={{ exact: true }}
                      data-section={to}
                      size="xs"
                      variant={pathname === to ? "filled" : "default"}
                      aria-current={pathname === to ? "page" : undefined}
                      style={{ flexShrink: 0 }}
                    >
                      {label}
                    </Button>
                  ))}
                </div>
              </Stack>
            </ScrollArea>
          </nav>
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 9 }}>
          <Stack gap="lg">
            <Outlet />
          </Stack>
        </Grid.Col>
      </Grid>
    </Container>
  );
}
