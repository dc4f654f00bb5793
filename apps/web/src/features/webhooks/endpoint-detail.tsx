import {
  Accordion,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Pagination,
  Paper,
  Stack,
  Switch,
  Text,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconWebhook } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { EmptyState, ErrorState, LoadingState, PageHeader } from "../../components/states";
import { V1Error, type WebhookEndpoint } from "../../lib/v1";
import { formatDate } from "../billing/format";
import { useListParams } from "../billing/list";
import { OnceSecret } from "../billing/once-secret";
import { EndpointEventsForm, ReplayForm } from "./endpoint-forms";
import {
  deliveriesQuery,
  useDeleteEndpoint,
  useRedeliver,
  useRotateSecret,
  useUpdateEndpoint,
} from "./queries";

/** One endpoint: enable it, its secret (rotated), its events, a replay, and its deliveries. */
export function EndpointDetail({
  endpoint: e,
  organizationId,
  canWrite,
  slug,
}: {
  endpoint: WebhookEndpoint;
  organizationId: string;
  canWrite: boolean;
  slug: string;
}) {
  const navigate = useNavigate();
  const { search, set, page } = useListParams();
  const deliveries = useQuery(
    deliveriesQuery(organizationId, { endpoint_id: e.id, page, limit: 10, succeeded: search.succeeded }),
  );
  const update = useUpdateEndpoint(organizationId, e.id);
  const rotate = useRotateSecret(organizationId, e.id);
  const remove = useDeleteEndpoint(organizationId, e.id);
  const redeliver = useRedeliver(organizationId);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<"rotate" | "delete" | null>(null);
  const act = async (fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      notifications.show({ color: "green", message: done });
    } catch (err) {
      notifications.show({
        color: "red",
        title: "Refused",
        message: err instanceof Error ? err.message : "Something went wrong.",
      });
    }
  };

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title={e.name ?? e.url}
        description={e.url}
        actions={
          canWrite && (
            <Group>
              <Switch
                label={e.enabled ? "Enabled" : "Disabled"}
                checked={e.enabled}
                onChange={(ev) => {
                  const enabled = ev.currentTarget.checked;
                  void act(
                    () => update.mutateAsync({ enabled }),
                    enabled ? "Endpoint enabled." : "Endpoint disabled.",
                  );
                }}
              />
              <Button variant="default" onClick={() => setConfirm("rotate")}>
                Rotate secret
              </Button>
              <Button variant="default" color="red" onClick={() => setConfirm("delete")}>
                Delete
              </Button>
            </Group>
          )
        }
      />
      {secret ? (
        <OnceSecret label="New signing secret" value={secret} />
      ) : (
        <Text size="sm">
          Signing secret: <Code>{e.secret}</Code>
        </Text>
      )}
      {canWrite && (
        <Paper withBorder p="md" radius="md">
          <Stack gap="sm">
            <EndpointEventsForm key={e.events.join(",")} endpoint={e} organizationId={organizationId} />
          </Stack>
        </Paper>
      )}
      {canWrite && (
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="replay">
          <Stack gap="sm">
            <Title order={2} size="h4" id="replay">
              Replay
            </Title>
            <Text size="sm" c="dimmed">
              Send this endpoint again every event of a time range it subscribes to.
            </Text>
            <ReplayForm endpointId={e.id} organizationId={organizationId} />
          </Stack>
        </Paper>
      )}
      <Group justify="space-between">
        <Title order={2} size="h4">
          Deliveries
        </Title>
        <Checkbox
          label="Failed only"
          checked={search.succeeded === false}
          onChange={(ev) => set({ succeeded: ev.currentTarget.checked ? false : undefined })}
        />
      </Group>
      {deliveries.isPending ? (
        <LoadingState label="Loading deliveries" />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.items.length === 0 ? (
        <EmptyState icon={IconWebhook} title="No deliveries yet">
          Events this endpoint subscribes to appear here as they are sent (this page refreshes itself).
        </EmptyState>
      ) : (
        <>
          <Accordion variant="separated" aria-label="Deliveries">
            {deliveries.data.items.map((d) => (
              <Accordion.Item key={d.id} value={d.id}>
                <Accordion.Control>
                  <Group gap="sm">
                    <Badge color={d.succeeded ? "green" : "red"}>{d.http_code ?? "no answer"}</Badge>
                    <Text size="sm" fw={500}>
                      {d.webhook_event.type}
                    </Text>
                    <Text size="sm" c="dimmed">
                      {formatDate(d.created_at)} · attempt {d.attempt} · {d.duration_ms} ms
                    </Text>
                  </Group>
                </Accordion.Control>
                <Accordion.Panel>
                  <Stack gap="xs">
                    <Text size="sm" fw={600}>
                      Request
                    </Text>
                    <Code block>
                      {Object.entries(d.request.headers)
                        .map(([k, v]) => `${k}: ${v}`)
                        .join("\n")}
                      {`\n\n${d.request.body}`}
                    </Code>
                    <Text size="sm" fw={600}>
                      Response
                    </Text>
                    <Code block data-testid="delivery-response">
                      {d.error ? `Error: ${d.error}` : `${d.http_code}\n\n${d.response ?? ""}`}
                    </Code>
                    {canWrite && (
                      <Button
                        size="xs"
                        variant="light"
                        w="fit-content"
                        onClick={() =>
                          void act(
                            () => redeliver.mutateAsync(d.webhook_event.id),
                            "Event queued for redelivery.",
                          )
                        }
                      >
                        Redeliver
                      </Button>
                    )}
                  </Stack>
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
          {deliveries.data.pagination.max_page > 1 && (
            <Pagination
              total={deliveries.data.pagination.max_page}
              value={page}
              onChange={(p) => set({ page: p === 1 ? undefined : p })}
            />
          )}
        </>
      )}
      <ConfirmDialog
        opened={confirm === "rotate"}
        onClose={() => setConfirm(null)}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onConfirm={async () => {
          try {
            const r = await rotate.mutateAsync();
            setSecret(r.secret);
            return null;
          } catch (err) {
            return err instanceof V1Error ? err : new V1Error(0, undefined, "Refused.");
          }
        }}
      >
        The current secret stops working at once: deliveries from now on are signed with the new one.
      </ConfirmDialog>
      <ConfirmDialog
        opened={confirm === "delete"}
        onClose={() => setConfirm(null)}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        onConfirm={async () => {
          try {
            await remove.mutateAsync();
            await navigate({ to: "/dashboard/$slug/settings/webhooks", params: { slug } });
            return null;
          } catch (err) {
            return err instanceof V1Error ? err : new V1Error(0, undefined, "Refused.");
          }
        }}
      >
        No more events are sent to {e.url}.
      </ConfirmDialog>
    </Stack>
  );
}
