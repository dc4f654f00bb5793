import { Group, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { useDocumentTitle } from "./document-title";

/** A page's title (the one h1), what the page is for, and optional actions on the right. */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  useDocumentTitle(title);
  return (
    <Group justify="space-between" align="flex-start" gap="sm">
      <Stack gap={4} maw={640}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        )}
      </Stack>
      {actions}
    </Group>
  );
}
