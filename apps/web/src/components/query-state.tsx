import { Alert, Button, Center, Group, Loader } from "@mantine/core";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";

/**
 * The loading and error states of a query, then its data: a spinner while it loads, the
 * error with a retry button when it failed.
 */
export function QueryState<T>({
  query,
  label,
  children,
}: {
  query: UseQueryResult<T>;
  /** What is loading, for screen readers and the error title ("your sessions"). */
  label: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={`Loading ${label}`} />
      </Center>
    );
  }
  if (query.isError) {
    return (
      <Alert color="red" role="alert" title={`Could not load ${label}`}>
        <Group justify="space-between" gap="sm">
          <span>{query.error.message}</span>
          <Button size="xs" variant="light" color="red" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </Group>
      </Alert>
    );
  }
  return <>{children(query.data)}</>;
}
