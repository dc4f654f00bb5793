import { Container, Paper, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconBuildingStore } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useDocumentTitle } from "../../components/document-title";
import { CreateOrganizationForm } from "../../features/organization/create-organization-form";
import { useCreateOrganization } from "../../features/organization/use-create-organization";
import { checkSlug } from "../../lib/organization";
import { sessionQuery } from "../../lib/queries";

/** `/dashboard` for someone without an organization: what to do next, and the form to do it. */
export function DashboardHome() {
  const session = useQuery(sessionQuery);
  const create = useCreateOrganization();
  const name = session.data?.user.name;
  useDocumentTitle("Welcome");
  return (
    <Container size={560} py="lg" px={0}>
      <Stack gap="lg">
        <Title order={1} size="h2">
          {name ? `Welcome, ${name}` : "Welcome"}
        </Title>
        <Paper withBorder radius="md" p={{ base: "md", sm: "xl" }}>
          <Stack gap="lg">
            <Stack align="center" gap="sm" ta="center">
              <ThemeIcon size={48} radius="xl" variant="light">
                <IconBuildingStore size={28} aria-hidden />
              </ThemeIcon>
              <Title order={2} size="h4">
                Create your first organization
              </Title>
              <Text c="dimmed" maw={420}>
                An organization is the business you sell for: its products, customers and team. You can invite
                people to it once it exists.
              </Text>
            </Stack>
            <CreateOrganizationForm checkSlug={checkSlug} onSubmit={create} />
          </Stack>
        </Paper>
      </Stack>
    </Container>
  );
}
