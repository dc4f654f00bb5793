import { Container, Paper, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconBuildingStore } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { sessionQuery } from "../../lib/queries";

export function DashboardHome() {
  const session = useQuery(sessionQuery);
  const name = session.data?.user.name;
  return (
    <Container size="md" py="lg">
      <Stack gap="lg">
        <Title order={1} size="h2">
          {name ? `Welcome, ${name}` : "Welcome"}
        </Title>
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="sm" ta="center">
            <ThemeIcon size={48} radius="xl" variant="light">
              <IconBuildingStore size={28} aria-hidden />
            </ThemeIcon>
            <Title order={2} size="h4">
              Organizations come next
            </Title>
            <Text c="dimmed" maw={420}>
              You are signed in. Soon you will create an organization here, invite your team and start
              selling.
            </Text>
          </Stack>
        </Paper>
      </Stack>
    </Container>
  );
}
