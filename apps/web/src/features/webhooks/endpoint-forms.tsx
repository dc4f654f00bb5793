import { zodResolver } from "@hookform/resolvers/zod";
import { WEBHOOK_EVENT_TYPES } from "@kassa/contracts";
import { ReplayRequest, WebhookEndpointCreate, WebhookEndpointUpdate } from "@kassa/contracts/v1";
import { Button, Checkbox, Group, SimpleGrid, Stack, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import { DialogActions } from "../../components/dialog-actions";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import type { WebhookEndpoint } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { FormRefusal } from "../billing/form";
import { useCreateEndpoint, useReplay, useUpdateEndpoint } from "./queries";

type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];
const Events = z.array(z.enum(WEBHOOK_EVENT_TYPES));

/** The event types an endpoint receives, as checkboxes. */
function EventPicker({
  value,
  onChange,
  error,
}: {
  value: EventType[];
  onChange: (v: EventType[]) => void;
  error?: string | undefined;
}) {
  return (
    <Checkbox.Group
      label="Events to receive"
      value={value}
      onChange={(v) => onChange(WEBHOOK_EVENT_TYPES.filter((t) => v.includes(t)))}
      error={error}
      required
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing={4} mt="xs">
        {WEBHOOK_EVENT_TYPES.map((t) => (
          <Checkbox key={t} value={t} label={t} />
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

const EndpointFormShape = z.object({
  url: z.string().regex(/^https?:\/\/.+/, "An http:// or https:// address."),
  name: z.string(),
  // A new endpoint names its events; an existing one may be left with none (the contract allows it).
  events: Events.min(1, "Choose at least one event."),
});
type EndpointFormValues = z.output<typeof EndpointFormShape>;

export const endpointBody = (v: EndpointFormValues): z.input<typeof WebhookEndpointCreate> => ({
  url: v.url,
  name: v.name || null,
  format: "raw",
  events: v.events,
});

const ENDPOINT_FIELDS: FieldMap = { url: "url", name: "name", events: "events" };
const endpointSchema = checkedAgainst(
  EndpointFormShape,
  WebhookEndpointCreate,
  endpointBody,
  ENDPOINT_FIELDS,
);

/** Adds an endpoint; `onDone` with it (its secret shown once). */
export function EndpointForm({
  organizationId,
  onDone,
}: {
  organizationId: string;
  onDone: (e: WebhookEndpoint) => void;
}) {
  const create = useCreateEndpoint(organizationId);
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<EndpointFormValues>({
    resolver: zodResolver(endpointSchema),
    defaultValues: { url: "", name: "", events: [] },
  });
  const submit = handleSubmit(async (values) => {
    try {
      onDone(await create.mutateAsync(endpointBody(values)));
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, ENDPOINT_FIELDS);
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <FormRefusal errors={errors} title="The endpoint was not added" />
        <TextInput
          label="URL"
          required
          placeholder="https://example.com/webhooks"
          {...register("url")}
          error={errors.url?.message}
        />
        <TextInput label="Name" {...register("name")} error={errors.name?.message} />
        <Controller
          control={control}
          name="events"
          render={({ field, fieldState }) => (
            <EventPicker value={field.value} onChange={field.onChange} error={fieldState.error?.message} />
          )}
        />
        <DialogActions>
          <Button type="submit" loading={isSubmitting}>
            Add endpoint
          </Button>
        </DialogActions>
      </Stack>
    </form>
  );
}

const EventsFormShape = z.object({ events: Events });
type EventsFormValues = z.output<typeof EventsFormShape>;
const EVENTS_FIELDS: FieldMap = { events: "events" };
const eventsSchema = checkedAgainst(
  EventsFormShape,
  WebhookEndpointUpdate,
  (v): z.input<typeof WebhookEndpointUpdate> => ({ events: v.events }),
  EVENTS_FIELDS,
);

/** The events an endpoint receives; "Save events" once they changed. */
export function EndpointEventsForm({
  endpoint,
  organizationId,
}: {
  endpoint: WebhookEndpoint;
  organizationId: string;
}) {
  const update = useUpdateEndpoint(organizationId, endpoint.id);
  const {
    control,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isDirty, isSubmitting },
  } = useForm<EventsFormValues>({
    resolver: zodResolver(eventsSchema),
    defaultValues: { events: endpoint.events },
  });
  const submit = handleSubmit(async (values) => {
    try {
      await update.mutateAsync({ events: values.events });
      reset(values);
      notifications.show({ color: "green", message: "Events saved." });
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, EVENTS_FIELDS);
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <FormRefusal errors={errors} title="The events were not saved" />
        <Controller
          control={control}
          name="events"
          render={({ field, fieldState }) => (
            <EventPicker value={field.value} onChange={field.onChange} error={fieldState.error?.message} />
          )}
        />
        {isDirty && (
          <Button type="submit" w="fit-content" loading={isSubmitting}>
            Save events
          </Button>
        )}
      </Stack>
    </form>
  );
}

const toIso = (local: string) => (local ? new Date(local).toISOString() : "");

const ReplayFormShape = z.object({ start: z.string(), end: z.string(), only_failed: z.boolean() });
type ReplayFormValues = z.output<typeof ReplayFormShape>;
export const replayBody = (v: ReplayFormValues): z.input<typeof ReplayRequest> => ({
  start: toIso(v.start),
  end: toIso(v.end),
  only_failed: v.only_failed,
});
const REPLAY_FIELDS: FieldMap = { start: "start", end: "end", only_failed: "only_failed" };
const replaySchema = checkedAgainst(ReplayFormShape, ReplayRequest, replayBody, REPLAY_FIELDS);

/** Sends an endpoint again every event of a time range it subscribes to. */
export function ReplayForm({ endpointId, organizationId }: { endpointId: string; organizationId: string }) {
  const replay = useReplay(organizationId, endpointId);
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ReplayFormValues>({
    resolver: zodResolver(replaySchema),
    defaultValues: { start: "", end: "", only_failed: false },
  });
  const submit = handleSubmit(async (values) => {
    try {
      const r = await replay.mutateAsync(replayBody(values));
      notifications.show({ color: "green", message: `${r.queued} deliveries queued.` });
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, REPLAY_FIELDS);
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <FormRefusal errors={errors} title="Nothing was replayed" />
        <Group align="flex-end">
          <TextInput
            type="datetime-local"
            label="From"
            {...register("start")}
            error={errors.start?.message}
          />
          <TextInput type="datetime-local" label="Until" {...register("end")} error={errors.end?.message} />
          <Controller
            control={control}
            name="only_failed"
            render={({ field }) => (
              <Checkbox
                label="Only those it did not receive"
                checked={field.value}
                onChange={(ev) => field.onChange(ev.currentTarget.checked)}
                mb={8}
              />
            )}
          />
          <Button type="submit" variant="light" loading={isSubmitting}>
            Replay
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
