import { WEBHOOK_EVENT_TYPES } from "@kassa/contracts";
import {
  Accordion,
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  Pagination,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconPlus, IconWebhook } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { DialogActions } from "../../../components/dialog-actions";
import { AnchorLink, ApiReferenceLink } from "../../../components/links";
import { EmptyState, ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import { OnceSecret } from "../../../features/billing/once-secret";
import {
  getQuery,
  invalidate,
  listQuery,
  V1Error,
  v1,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookReplayResult,
} from "../../../lib/v1";

function EventPicker({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (v: string[]) => void;
  error?: string;
}) {
  return (
    <Checkbox.Group label="Events to receive" value={value} onChange={onChange} error={error} required>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing={4} mt="xs">
        {WEBHOOK_EVENT_TYPES.map((t) => (
          <Checkbox key={t} value={t} label={t} />
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

/** `/dashboard/{slug}/settings/webhooks`: the endpoints Kassa sends signed events to. */
export function WebhooksPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { page, limit } = useListParams();
  const endpoints = useQuery(
    listQuery<WebhookEndpoint>(organizationId, "webhooks/endpoints", { page, limit }),
  );
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Webhooks"
        description={
          <>
            Kassa POSTs signed events (Standard Webhooks) to these addresses as things happen. The{" "}
            <ApiReferenceLink /> describes each event's payload.
          </>
        }
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              Add endpoint
            </Button>
          )
        }
      />
      {created && (
        <OnceSecret label={`Signing secret of ${created.name ?? created.url}`} value={created.secret} />
      )}
      <ListView
        query={endpoints}
        label="endpoints"
        caption="Webhook endpoints"
        empty={{
          icon: IconWebhook,
          title: "No endpoints yet",
          children: canWrite
            ? "Add the address of your server and the events it wants; verify each delivery with its signing secret."
            : "An owner or admin of this organization adds webhook endpoints.",
        }}
        columns={[
          {
            label: "Endpoint",
            render: (e) => (
              <AnchorLink
                to="/dashboard/$slug/settings/webhooks/$endpointId"
                params={{ slug, endpointId: e.id }}
              >
                {e.name ?? e.url}
              </AnchorLink>
            ),
          },
          {
            label: "URL",
            render: (e) => (
              <Text size="sm" style={{ wordBreak: "break-all" }}>
                {e.url}
              </Text>
            ),
          },
          { label: "Events", render: (e) => e.events.length },
          {
            label: "Status",
            render: (e) => (
              <Badge color={e.enabled ? "green" : "gray"}>{e.enabled ? "Enabled" : "Disabled"}</Badge>
            ),
          },
          { label: "Created", render: (e) => formatDate(e.created_at) },
        ]}
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="Add a webhook endpoint" size="lg">
        {creating && (
          <EndpointForm
            organizationId={organizationId}
            onDone={(e) => {
              setCreating(false);
              setCreated(e);
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function EndpointForm({
  organizationId,
  onDone,
}: {
  organizationId: string;
  onDone: (e: WebhookEndpoint) => void;
}) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    const local: Record<string, string> = {};
    if (!/^https?:\/\/.+/.test(url)) local.url = "An http:// or https:// address.";
    if (events.length === 0) local.events = "Choose at least one event.";
    setErrors(local);
    setRefusal(null);
    if (Object.keys(local).length) return;
    setSaving(true);
    try {
      const e = await v1<WebhookEndpoint>(organizationId, "/webhooks/endpoints", {
        method: "POST",
        body: { url, name: name || null, format: "raw", events },
      });
      await invalidate(queryClient, organizationId, "webhooks/endpoints");
      onDone(e);
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) setErrors(e.fieldErrors());
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The endpoint was not added">
          {refusal}
        </Alert>
      )}
      <TextInput
        label="URL"
        required
        placeholder="https://example.com/webhooks"
        value={url}
        onChange={(e) => setUrl(e.currentTarget.value)}
        error={errors.url}
      />
      <TextInput
        label="Name"
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={errors.name}
      />
      <EventPicker value={events} onChange={setEvents} error={errors.events} />
      <DialogActions>
        <Button loading={saving} onClick={() => void save()}>
          Add endpoint
        </Button>
      </DialogActions>
    </Stack>
  );
}

const toIso = (local: string) => (local ? new Date(local).toISOString() : "");

/** `/dashboard/{slug}/settings/webhooks/{id}`: one endpoint, its secret, its deliveries, replay. */
export function WebhookEndpointPage() {
  const { endpointId = "" } = useParams({ strict: false }) as { endpointId?: string };
  const { organizationId, canWrite, slug } = useBilling();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { search, set, page } = useListParams();
  const endpoint = useQuery(getQuery<WebhookEndpoint>(organizationId, "webhooks/endpoints", endpointId));
  const deliveries = useQuery({
    ...listQuery<WebhookDelivery>(organizationId, "webhooks/deliveries", {
      endpoint_id: endpointId,
      page,
      limit: 10,
      succeeded: search.succeeded,
    }),
    refetchInterval: 5000,
  });
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<"rotate" | "delete" | null>(null);
  const [events, setEvents] = useState<string[] | null>(null);
  const [replay, setReplay] = useState({ start: "", end: "", only_failed: false });
  const [replayError, setReplayError] = useState<Record<string, string>>({});

  if (endpoint.isPending) return <LoadingState label="Loading the endpoint" />;
  if (endpoint.isError) return <ErrorState error={endpoint.error} onRetry={() => void endpoint.refetch()} />;
  const e = endpoint.data;
  const refresh = () => invalidate(queryClient, organizationId, "webhooks/endpoints");
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
                    async () => {
                      await v1(organizationId, `/webhooks/endpoints/${e.id}`, {
                        method: "PATCH",
                        body: { enabled },
                      });
                      await refresh();
                    },
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
            <EventPicker value={events ?? e.events} onChange={setEvents} />
            {events && (
              <Button
                w="fit-content"
                onClick={() =>
                  void act(async () => {
                    await v1(organizationId, `/webhooks/endpoints/${e.id}`, {
                      method: "PATCH",
                      body: { events },
                    });
                    await refresh();
                    setEvents(null);
                  }, "Events saved.")
                }
              >
                Save events
              </Button>
            )}
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
            <Group align="flex-end">
              <TextInput
                type="datetime-local"
                label="From"
                value={replay.start}
                onChange={(ev) => setReplay({ ...replay, start: ev.currentTarget.value })}
                error={replayError.start}
              />
              <TextInput
                type="datetime-local"
                label="Until"
                value={replay.end}
                onChange={(ev) => setReplay({ ...replay, end: ev.currentTarget.value })}
                error={replayError.end}
              />
              <Checkbox
                label="Only those it did not receive"
                checked={replay.only_failed}
                onChange={(ev) => setReplay({ ...replay, only_failed: ev.currentTarget.checked })}
                mb={8}
              />
              <Button
                variant="light"
                onClick={async () => {
                  setReplayError({});
                  try {
                    const r = await v1<WebhookReplayResult>(
                      organizationId,
                      `/webhooks/endpoints/${e.id}/replay`,
                      {
                        method: "POST",
                        body: {
                          start: toIso(replay.start),
                          end: toIso(replay.end),
                          only_failed: replay.only_failed,
                        },
                      },
                    );
                    notifications.show({ color: "green", message: `${r.queued} deliveries queued.` });
                  } catch (err) {
                    if (err instanceof V1Error && err.issues.length) setReplayError(err.fieldErrors());
                    else
                      notifications.show({
                        color: "red",
                        message: err instanceof Error ? err.message : "Refused.",
                      });
                  }
                }}
              >
                Replay
              </Button>
            </Group>
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
                          void act(async () => {
                            await v1(organizationId, `/webhooks/events/${d.webhook_event.id}/redeliver`, {
                              method: "POST",
                            });
                            await invalidate(queryClient, organizationId, "webhooks/deliveries");
                          }, "Event queued for redelivery.")
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
            const r = await v1<WebhookEndpoint>(organizationId, `/webhooks/endpoints/${e.id}/secret`, {
              method: "PATCH",
            });
            setSecret(r.secret);
            await refresh();
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
            await v1(organizationId, `/webhooks/endpoints/${e.id}`, { method: "DELETE" });
            await refresh();
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
