import { apiKeyExpiresInSeconds } from "@kassa/contracts";
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Stack,
  Table,
  Text,
  Tooltip,
  VisuallyHidden,
} from "@mantine/core";
import { IconCheck, IconCopy } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { CreateApiKeyForm } from "../../features/api-keys/create-api-key-form";
import { type ApiKeyRow, apiKeysQuery } from "../../features/api-keys/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { formatDate, isPast } from "../../lib/format";
import { serverErrorMessage } from "../../lib/server-errors";

/** The key just created: its secret is shown this once and never again. */
function NewKey({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  return (
    <Alert color="green" role="status" title={`Your new key “${name}”`}>
      <Stack gap="sm">
        <Text size="sm">Copy it now: it is shown only once. Kassa keeps only a hash of it.</Text>
        <Group gap="xs" wrap="nowrap" align="center">
          <Code
            block
            style={{ flex: 1, overflowWrap: "anywhere", whiteSpace: "pre-wrap" }}
            aria-label="New API key"
          >
            {secret}
          </Code>
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Tooltip label={copied ? "Copied" : "Copy"} withArrow>
                <ActionIcon
                  variant={copied ? "filled" : "default"}
                  color={copied ? "green" : undefined}
                  size="lg"
                  onClick={copy}
                  aria-label={copied ? "Copied" : "Copy the key"}
                >
                  {copied ? <IconCheck size={18} /> : <IconCopy size={18} />}
                </ActionIcon>
              </Tooltip>
            )}
          </CopyButton>
        </Group>
        <Group justify="flex-end">
          <Button size="xs" variant="default" onClick={onDone}>
            I have copied it
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

function status(key: ApiKeyRow) {
  if (!key.enabled) return <Badge color="gray">disabled</Badge>;
  if (isPast(key.expiresAt)) return <Badge color="orange">expired</Badge>;
  return <Badge color="green">enabled</Badge>;
}

export function ApiKeysPage() {
  const keys = useQuery(apiKeysQuery);
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyRow | null>(null);

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let scripts and servers call Kassa as you. Treat them like passwords."
      />
      <SettingsSection title="Create a key">
        {created && <NewKey {...created} onDone={() => setCreated(null)} />}
        <CreateApiKeyForm
          onSubmit={async ({ name, expiresIn }) => {
            let secret: string | undefined;
            const refusal = await refusalOf(async () => {
              const res = await authClient.apiKey.create({
                name,
                expiresIn: apiKeyExpiresInSeconds(expiresIn),
              });
              secret = res.data?.key;
              return res;
            });
            if (refusal) return refusal;
            if (secret) setCreated({ name, secret });
            await queryClient.invalidateQueries({ queryKey: apiKeysQuery.queryKey });
            return null;
          }}
        />
      </SettingsSection>
      <SettingsSection title="Your keys">
        <QueryState query={keys} label="your API keys">
          {({ apiKeys }) =>
            apiKeys.length === 0 ? (
              <Text c="dimmed" size="sm">
                No keys yet. Create one above to call the API from a script.
              </Text>
            ) : (
              <Table.ScrollContainer minWidth={560}>
                <Table verticalSpacing="xs" aria-label="Your API keys">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Name</Table.Th>
                      <Table.Th>Starts with</Table.Th>
                      <Table.Th>Created</Table.Th>
                      <Table.Th>Expires</Table.Th>
                      <Table.Th>Status</Table.Th>
                      <Table.Th>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {apiKeys.map((key) => (
                      <Table.Tr key={key.id}>
                        <Table.Td>{key.name ?? "(no name)"}</Table.Td>
                        <Table.Td>
                          <Code>{`${key.prefix ?? ""}${key.start ?? ""}…`}</Code>
                        </Table.Td>
                        <Table.Td>{formatDate(key.createdAt)}</Table.Td>
                        <Table.Td>{formatDate(key.expiresAt, "Never")}</Table.Td>
                        <Table.Td>{status(key)}</Table.Td>
                        <Table.Td ta="right">
                          <Button
                            size="xs"
                            variant="default"
                            color="red"
                            onClick={() => setRevoking(key)}
                            aria-label={`Revoke ${key.name ?? "key"}`}
                          >
                            Revoke
                          </Button>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )
          }
        </QueryState>
      </SettingsSection>
      <ConfirmDialog
        opened={revoking !== null}
        onClose={() => setRevoking(null)}
        title={`Revoke “${revoking?.name ?? "key"}”?`}
        confirmLabel="Revoke key"
        onConfirm={async () => {
          if (!revoking) return null;
          const refusal = await refusalOf(() => authClient.apiKey.delete({ keyId: revoking.id }));
          if (refusal) return serverErrorMessage(refusal);
          await queryClient.invalidateQueries({ queryKey: apiKeysQuery.queryKey });
          return null;
        }}
      >
        Scripts using this key stop working at once. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}
