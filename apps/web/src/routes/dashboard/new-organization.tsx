import { Container, Paper, Stack, Text, Title } from "@mantine/core";
import { useDocumentTitle } from "../../components/document-title";
import { CreateOrganizationForm } from "../../features/organization/create-organization-form";
import { useCreateOrganization } from "../../features/organization/use-create-organization";
import { checkSlug } from "../../lib/organization";

/** `/dashboard/new`: another organization. */
export function NewOrganizationPage() {
  const create = useCreateOrganization();
  useDocumentTitle("Create an organization");
  return (
    <Container size={560} py="lg" px={0}>
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={1} size="h2">
            Create an organization
          </Title>
          <Text c="dimmed" size="sm">
            It gets its own products, customers, members and settings. You will be its owner.
          </Text>
        </Stack>
        <Paper withBorder radius="md" p={{ base: "md", sm: "xl" }}>
          <CreateOrganizationForm checkSlug={checkSlug} onSubmit={create} />
        </Paper>
      </Stack>
    </Container>
  );
}
