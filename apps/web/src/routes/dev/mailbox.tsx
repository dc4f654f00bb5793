import { Alert, Anchor, Badge, Button, Card, Center, Group, Loader, Stack, Text } from "@mantine/core";
import { IconRefresh } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { usePublicConfig } from "../../lib/queries";
import { AuthPage } from "../auth/layout";

interface Mail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  links: string[];
  created_at: string;
}

/** The mails a server without SMTP has sent, with their links (development only). */
export function DevMailboxPage() {
  const config = usePublicConfig();
  const enabled = config.data?.devMailbox === true;
  const mails = useQuery({
    queryKey: ["dev-mailbox"],
    enabled,
    refetchInterval: 5_000,
    queryFn: async (): Promise<Mail[]> => {
      const res = await fetch("/api/dev/mailbox");
      if (!res.ok) throw new Error(`The mailbox answered ${res.status}.`);
      return ((await res.json()) as { items: Mail[] }).items;
    },
  });

  let body: React.ReactNode;
  if (config.isPending || (enabled && mails.isPending)) {
    body = (
      <Center py="xl">
        <Loader aria-label="Loading" />
      </Center>
    );
  } else if (!enabled) {
    body = <Alert color="gray">This server delivers mail over SMTP: there is no development mailbox.</Alert>;
  } else if (mails.isError) {
    body = (
      <Alert color="red" role="alert">
        {mails.error.message}
      </Alert>
    );
  } else if (!mails.data?.length) {
    body = <Text c="dimmed">No mail yet. Sign up, and the verification mail appears here.</Text>;
  } else {
    body = (
      <Stack gap="sm" component="ul" p={0} style={{ listStyle: "none" }}>
        {mails.data.map((m) => (
          <Card key={m.id} component="li" withBorder radius="md" p="md">
            <Group justify="space-between" gap="xs" wrap="wrap">
              <Text fw={600}>{m.subject}</Text>
              <Badge variant="light">{m.kind}</Badge>
            </Group>
            <Text size="sm" c="dimmed">
              To {m.to}, {new Date(m.created_at).toLocaleString()}
            </Text>
            <Stack gap={4} mt="xs">
              {m.links.map((link) => (
                <Anchor key={link} href={link} size="sm" style={{ wordBreak: "break-all" }}>
                  {link}
                </Anchor>
              ))}
            </Stack>
          </Card>
        ))}
      </Stack>
    );
  }

  return (
    <AuthPage
      title="Development mailbox"
      subtitle="The mails this server sent, because it has no mail server to send them through."
    >
      <Stack gap="md">
        {enabled && (
          <Group justify="flex-end">
            <Button
              variant="subtle"
              size="xs"
              leftSection={<IconRefresh size={16} />}
              loading={mails.isFetching}
              onClick={() => void mails.refetch()}
            >
              Refresh
            </Button>
          </Group>
        )}
        {body}
      </Stack>
    </AuthPage>
  );
}
