import { Alert, Button, Center, Group, Loader, Paper, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import type { ReactNode } from "react";
import { useDocumentTitle } from "./document-title";
import { type Icon, IconInbox } from "./icons";

/**
 * A page's title with what it is for and its main actions. The browser tab shows the title
 * (or `documentTitle` when the title is not plain text).
 */
export function PageHeader({
  title,
  description,
  actions,
  documentTitle,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  documentTitle?: string;
}) {
  useDocumentTitle(documentTitle ?? (typeof title === "string" ? title : undefined));
  return (
    <Group justify="space-between" align="flex-start" gap="sm">
      <Stack gap={4} miw={0}>
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

export function LoadingState({ label = "Loading" }: { label?: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={label} />
    </Center>
  );
}

/** A failed load, in the server's words, with a retry. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <Alert color="red" role="alert" icon={<IconAlertTriangle size={20} />} title="This could not be loaded">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{error instanceof Error ? error.message : "Something went wrong."}</Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/** Nothing here yet: what this is and what to do next. */
export function EmptyState({
  icon: IconComponent = IconInbox,
  title,
  children,
  action,
}: {
  icon?: Icon;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <Paper withBorder radius="md" p="xl">
      <Stack align="center" gap="xs" ta="center">
        <ThemeIcon size={44} radius="xl" variant="light" color="gray">
          <IconComponent size={24} aria-hidden />
        </ThemeIcon>
        <Title order={2} size="h5">
          {title}
        </Title>
        {children && (
          <Text size="sm" c="dimmed" maw={420}>
            {children}
          </Text>
        )}
        {action}
      </Stack>
    </Paper>
  );
}
