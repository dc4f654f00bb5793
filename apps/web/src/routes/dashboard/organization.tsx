import { Anchor, Badge, Button, Card, Center, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { IconApi, IconMailForward, IconUsers, IconUsersGroup } from "@tabler/icons-react";
import { Link } from "@tanstack/react-router";
import { CardLink } from "../../components/card-link";
import { useDocumentTitle } from "../../components/document-title";
import { API_REFERENCE_PATH, ButtonLink } from "../../components/links";
import { OrganizationAvatar } from "../../components/organization-avatar";
import { ErrorState, LoadingState } from "../../components/states";
import { roleNames } from "../../features/organization/roles";
import { useCurrentOrganization } from "../../features/organization/viewer";

/** `/dashboard/{slug}`: the organization at a glance. The billing issues put their metrics here. */
export function OrganizationHome() {
  const { organization, viewer, query, slug } = useCurrentOrganization();
  useDocumentTitle(organization?.name);
  if (query.isPending) return <LoadingState />;
  if (query.isError || !organization)
    return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;

  const teams = organization.teams ?? [];
  const cards = [
    {
      label: "Members",
      value: organization.members.length,
      icon: IconUsers,
      to: "/dashboard/$slug/settings/members" as const,
    },
    {
      label: "Teams",
      value: teams.length,
      icon: IconUsersGroup,
      to: "/dashboard/$slug/settings/teams" as const,
    },
  ];

  return (
    <Stack gap="lg" maw={960}>
      <Group gap="md" wrap="nowrap">
        <OrganizationAvatar src={organization.logo} name={organization.name} size={56} radius="md" />
        <Stack gap={2} miw={0}>
          <Title order={1} size="h2">
            {organization.name}
          </Title>
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              /dashboard/{organization.slug}
            </Text>
            {viewer?.member && (
              <Badge variant="light" aria-label={`Your role: ${roleNames(viewer.member.role)}`}>
                {roleNames(viewer.member.role)}
              </Badge>
            )}
          </Group>
        </Stack>
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
        {cards.map(({ label, value, icon: Icon, to }) => (
          <CardLink key={label} withBorder radius="md" to={to} params={{ slug }}>
            <Group justify="space-between">
              <Text size="sm" c="dimmed" fw={500}>
                {label}
              </Text>
              <Icon size={20} aria-hidden />
            </Group>
            <Text fz={28} fw={700}>
              {value}
            </Text>
          </CardLink>
        ))}
      </SimpleGrid>
      {viewer?.can("invitation", "create") && (
        <Card withBorder radius="md">
          <Group justify="space-between" gap="sm">
            <Stack gap={2}>
              <Text fw={600}>Bring your team</Text>
              <Text size="sm" c="dimmed">
                Invite people by e-mail and choose what they may do.
              </Text>
            </Stack>
            <ButtonLink
              to="/dashboard/$slug/settings/invitations"
              params={{ slug }}
              leftSection={<IconMailForward size={16} />}
              variant="light"
            >
              Invite a member
            </ButtonLink>
          </Group>
        </Card>
      )}
      <Card withBorder radius="md">
        <Group justify="space-between" gap="sm">
          <Stack gap={2}>
            <Text fw={600}>Build on the API</Text>
            <Text size="sm" c="dimmed">
              Your servers sell through the billing API with an access token: every endpoint is described in
              the API reference.
            </Text>
          </Stack>
          <Button
            component="a"
            href={API_REFERENCE_PATH}
            target="_blank"
            rel="noopener"
            leftSection={<IconApi size={16} />}
            variant="light"
          >
            API reference
          </Button>
        </Group>
      </Card>
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
