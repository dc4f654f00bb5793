import { Anchor, Badge, Center, Group, Stack, Text, Title } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useDocumentTitle } from "../../components/document-title";
import { AnchorLink, API_REFERENCE_PATH } from "../../components/links";
import { OrganizationAvatar } from "../../components/organization-avatar";
import { ErrorState, LoadingState } from "../../components/states";
import { OnboardingChecklist } from "../../features/metrics/checklist";
import { HomeMetrics } from "../../features/metrics/home-metrics";
import { ActivityTimeline } from "../../features/metrics/timeline";
import { roleNames } from "../../features/organization/roles";
import { useCurrentOrganization } from "../../features/organization/viewer";

/** The analytics page loads with the home (one chunk behind one import site in the router). */
export { AnalyticsPage } from "../../features/metrics/analytics-page";

/**
 * `/dashboard/{slug}`: the organization at a glance: the period's figures against the previous
 * period, revenue and MRR charts, the latest activity and, for a new organization, the first
 * steps. Members and teams are a line under the name.
 */
export function OrganizationHome() {
  const { organization, viewer, query, slug } = useCurrentOrganization();
  useDocumentTitle(organization?.name);
  if (query.isPending) return <LoadingState />;
  if (query.isError || !organization)
    return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;

  const teams = organization.teams ?? [];
  const members = organization.members.length;
  const canWrite = viewer?.can("billing", "write") ?? false;

  return (
    <Stack gap="lg" maw={1200}>
      <Group gap="md" wrap="nowrap">
        <OrganizationAvatar src={organization.logo} name={organization.name} size={48} radius="md" />
        <Stack gap={2} miw={0}>
          <Title order={1} size="h2">
            {organization.name}
          </Title>
          <Group gap="xs">
            {viewer?.member && (
              <Badge variant="light" aria-label={`Your role: ${roleNames(viewer.member.role)}`}>
                {roleNames(viewer.member.role)}
              </Badge>
            )}
            <Text size="sm" c="dimmed">
              <AnchorLink to="/dashboard/$slug/settings/members" params={{ slug }} inherit>
                {members === 1 ? "1 member" : `${members} members`}
              </AnchorLink>
              {" · "}
              <AnchorLink to="/dashboard/$slug/settings/teams" params={{ slug }} inherit>
                {teams.length === 1 ? "1 team" : `${teams.length} teams`}
              </AnchorLink>
              {" · "}
              <Anchor href={API_REFERENCE_PATH} target="_blank" rel="noopener" inherit>
                API reference
              </Anchor>
            </Text>
          </Group>
        </Stack>
      </Group>
      {canWrite && <OnboardingChecklist organizationId={organization.id} slug={slug} />}
      <HomeMetrics organizationId={organization.id} slug={slug} />
      <ActivityTimeline organizationId={organization.id} slug={slug} />
    </Stack>
  );
}

export function OrganizationNotFound() {
  return (
    <Center mih="50dvh" p="md">
      <Stack align="center" gap="sm" ta="center" maw={420}>
        <Title order={1} size="h2">
          Organization not found
        </Title>
        <Text c="dimmed">
          No organization you belong to has this address. It may have been renamed or deleted, or you are no
          longer a member.
        </Text>
        <Anchor component={Link} to="/dashboard">
          Go to your dashboard
        </Anchor>
      </Stack>
    </Center>
  );
}
