import { Anchor, Box, Container, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { Link, Outlet } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { Brand, ThemeToggle } from "../../components/brand";
import { useDocumentTitle } from "../../components/document-title";

/** The sign-in pages: one calm column, the brand above, the theme switch in the corner. */
export function AuthLayout() {
  return (
    <Box mih="100dvh" bg="var(--mantine-color-body)">
      <Container size={440} py={{ base: "lg", sm: 48 }} px="md">
        <Group justify="space-between" mb="xl">
          <Anchor component={Link} to="/" underline="never" c="inherit" aria-label="Kassa home">
            <Brand />
          </Anchor>
          <ThemeToggle />
        </Group>
        <main>
          <Outlet />
        </main>
      </Container>
    </Box>
  );
}

export function AuthPage({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  useDocumentTitle(title);
  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {subtitle && (
          <Text c="dimmed" size="sm">
            {subtitle}
          </Text>
        )}
      </Stack>
      <Paper withBorder radius="md" p={{ base: "md", sm: "xl" }} shadow="xs">
        {children}
      </Paper>
      {footer && (
        <Text size="sm" ta="center" c="dimmed">
          {footer}
        </Text>
      )}
    </Stack>
  );
}
