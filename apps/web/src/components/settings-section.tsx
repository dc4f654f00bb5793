import { Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** One titled card on a settings page; `danger` marks destructive sections. */
export function SettingsSection({
  title,
  description,
  children,
  danger = false,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  danger?: boolean;
}) {
  return (
    <Paper
      component="section"
      withBorder
      radius="md"
      p={{ base: "md", sm: "lg" }}
      style={danger ? { borderColor: "var(--mantine-color-red-outline)" } : undefined}
      aria-label={title}
    >
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} size="h4" c={danger ? "red" : undefined}>
            {title}
          </Title>
          {description && (
            <Text c="dimmed" size="sm">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Paper>
  );
}
