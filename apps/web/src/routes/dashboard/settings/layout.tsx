import { Stack } from "@mantine/core";
import { Outlet } from "@tanstack/react-router";
import { ErrorState, LoadingState } from "../../../components/states";
import { useCurrentOrganization } from "../../../features/organization/viewer";

/**
 * `/dashboard/{slug}/settings/...`: the organization's settings pages (organization, members,
 * invitations, teams, billing, webhooks, access tokens, tax rates).
 */
export function SettingsLayout() {
  const { query } = useCurrentOrganization();
  if (query.isPending) return <LoadingState />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  return (
    <Stack gap="lg" maw={960}>
      <Outlet />
    </Stack>
  );
}
