import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconGauge, IconPlus } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { DialogActions } from "../../../components/dialog-actions";
import { PageHeader } from "../../../components/states";
import { describeFilter, FilterBuilder, validateFilter } from "../../../features/billing/filter-builder";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import {
  AGGREGATION_FUNCS,
  type Aggregation,
  type Filter,
  invalidate,
  listQuery,
  type Meter,
  V1Error,
  v1,
} from "../../../lib/v1";

const AGGREGATION_LABELS: Record<Aggregation["func"], string> = {
  count: "Count the events",
  sum: "Sum of a property",
  max: "Maximum of a property",
  min: "Minimum of a property",
  avg: "Average of a property",
  unique: "Distinct values of a property",
};

export const describeAggregation = (a: Aggregation) =>
  a.func === "count" ? "count" : `${a.func}(${a.property})`;

/** `/dashboard/{slug}/meters`: what usage is counted, and how. */
export function MetersPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set, page, limit } = useListParams();
  const archived = search.archived === true;
  const meters = useQuery(
    listQuery<Meter>(organizationId, "meters", {
      page,
      limit,
      sorting: search.sorting,
      query: search.query,
      is_archived: archived ? undefined : false,
    }),
  );
  const [editing, setEditing] = useState<Meter | "new" | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Meters"
        description="Meters turn the usage events you send into quantities that metered prices charge for."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New meter
            </Button>
          )
        }
      />
      <Switch
        label="Show archived"
        checked={archived}
        onChange={(e) => set({ archived: e.currentTarget.checked ? true : undefined })}
      />
      <ListView
        query={meters}
        label="meters"
        caption="Meters"
        empty={{
          icon: IconGauge,
          title: "No meters yet",
          children: canWrite
            ? "Create a meter to charge for usage: choose which events it counts and how (count, or sum of a property)."
            : "An owner or admin of this organization creates meters.",
        }}
        columns={[
          {
            label: "Name",
            sort: "name",
            render: (m) =>
              canWrite ? (
                <Anchor component="button" onClick={() => setEditing(m)}>
                  {m.name}
                </Anchor>
              ) : (
                m.name
              ),
          },
          { label: "Aggregation", render: (m) => <code>{describeAggregation(m.aggregation)}</code> },
          {
            label: "Filter",
            render: (m) => <Text size="sm">{describeFilter(m.filter)}</Text>,
          },
          {
            label: "Status",
            render: (m) =>
              m.archived_at ? <Badge color="orange">Archived</Badge> : <Badge variant="light">Active</Badge>,
          },
          { label: "Created", sort: "created_at", render: (m) => formatDate(m.created_at) },
        ]}
      />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === "new" ? "New meter" : "Edit meter"}
        size="xl"
      >
        {editing !== null && (
          <MeterForm
            key={editing === "new" ? "new" : editing.id}
            meter={editing === "new" ? undefined : editing}
            organizationId={organizationId}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
    </Stack>
  );
}

function MeterForm({
  meter,
  organizationId,
  onDone,
}: {
  meter?: Meter;
  organizationId: string;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(meter?.name ?? "");
  const [filter, setFilter] = useState<Filter>(meter?.filter ?? { conjunction: "and", clauses: [] });
  const [aggregation, setAggregation] = useState<Aggregation>(meter?.aggregation ?? { func: "count" });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [archiving, setArchiving] = useState(false);

  const archive = async () => {
    if (!meter) return null;
    try {
      await v1(organizationId, `/meters/${meter.id}`, { method: "PATCH", body: { is_archived: true } });
      await invalidate(queryClient, organizationId, "meters");
      onDone();
      return null;
    } catch (e) {
      return e instanceof V1Error ? e : new V1Error(0, undefined, "Could not archive.");
    }
  };

  const save = async (extra: Record<string, unknown> = {}) => {
    const local = validateFilter(filter);
    if (name.trim().length < 3) local.name = "A name of at least 3 characters.";
    if (aggregation.func !== "count" && aggregation.property.trim() === "")
      local["aggregation.property"] = "Name the property to aggregate.";
    setErrors(local);
    setRefusal(null);
    if (Object.keys(local).length) return;
    setSaving(true);
    try {
      const body = { name: name.trim(), filter, aggregation, ...extra };
      if (meter) await v1(organizationId, `/meters/${meter.id}`, { method: "PATCH", body });
      else await v1(organizationId, "/meters/", { method: "POST", body });
      await invalidate(queryClient, organizationId, "meters");
      notifications.show({ color: "green", message: meter ? "Meter saved." : "Meter created." });
      onDone();
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
        <Alert color="red" role="alert" title="The meter was not saved">
          {refusal}
        </Alert>
      )}
      <TextInput
        label="Name"
        required
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={errors.name}
        description="Shown to customers on invoices, e.g. API requests."
      />
      <FilterBuilder filter={filter} onChange={setFilter} errors={errors} />
      <Group align="flex-start">
        <Select
          label="Aggregation"
          data={AGGREGATION_FUNCS.map((f) => ({ value: f, label: AGGREGATION_LABELS[f] }))}
          value={aggregation.func}
          onChange={(v) =>
            setAggregation(
              v === "count" || !v
                ? { func: "count" }
                : {
                    func: v as Exclude<Aggregation["func"], "count">,
                    property: "property" in aggregation ? aggregation.property : "",
                  },
            )
          }
          allowDeselect={false}
          w={260}
        />
        {aggregation.func !== "count" && (
          <TextInput
            label="Property"
            required
            value={aggregation.property}
            onChange={(e) => setAggregation({ ...aggregation, property: e.currentTarget.value })}
            error={errors["aggregation.property"]}
          />
        )}
      </Group>
      <DialogActions justify="space-between">
        {meter && !meter.archived_at ? (
          <Button variant="subtle" color="orange" onClick={() => setArchiving(true)}>
            Archive meter
          </Button>
        ) : (
          <span />
        )}
        <Group>
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button loading={saving} onClick={() => void save()}>
            {meter ? "Save meter" : "Create meter"}
          </Button>
        </Group>
      </DialogActions>
      <ConfirmDialog
        opened={archiving}
        onClose={() => setArchiving(false)}
        title="Archive this meter?"
        confirmLabel="Archive meter"
        onConfirm={archive}
      >
        {meter?.name} stops being offered for new prices; prices that use it keep counting.
      </ConfirmDialog>
    </Stack>
  );
}
