import {
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  Select,
  Stack,
  Switch,
  Textarea,
  TextInput,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconGift, IconPlus } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { DialogActions } from "../../../components/dialog-actions";
import { PageHeader } from "../../../components/states";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import {
  DeleteRowDialog,
  EditableName,
  type Editing,
  EditorModal,
  RowDeleteButton,
} from "../../../features/billing/row-actions";
import {
  BENEFIT_TYPES,
  type Benefit,
  type BenefitType,
  invalidate,
  listQuery,
  type Meter,
  V1Error,
  v1,
} from "../../../lib/v1";

export const BENEFIT_LABELS: Record<BenefitType, string> = {
  custom: "Custom note",
  discord: "Discord role",
  downloadables: "File downloads",
  github_repository: "GitHub repository access",
  license_keys: "License keys",
  meter_credit: "Meter credits",
};

type Props = Record<string, unknown>;

/** `/dashboard/{slug}/benefits`: what buyers get with a product. */
export function BenefitsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set, page, limit } = useListParams();
  const type = typeof search.type === "string" ? search.type : undefined;
  const benefits = useQuery(
    listQuery<Benefit>(organizationId, "benefits", {
      page,
      limit,
      sorting: search.sorting,
      type,
      query: search.query,
    }),
  );
  const [editing, setEditing] = useState<Editing<Benefit>>(null);
  const [deleting, setDeleting] = useState<Benefit | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Benefits"
        description="License keys, file downloads, repository or Discord access, credits and notes granted with products."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New benefit
            </Button>
          )
        }
      />
      <Select
        label="Kind"
        placeholder="Every kind"
        clearable
        data={BENEFIT_TYPES.map((t) => ({ value: t, label: BENEFIT_LABELS[t] }))}
        value={type ?? null}
        onChange={(v) => set({ type: v ?? undefined })}
        w={260}
      />
      <ListView
        query={benefits}
        label="benefits"
        caption="Benefits"
        empty={{
          icon: IconGift,
          title: type ? "No benefit of this kind" : "No benefits yet",
          children: canWrite
            ? "Create a benefit, then attach it to a product: buyers receive it when they pay."
            : "An owner or admin of this organization creates benefits.",
        }}
        columns={[
          {
            label: "Description",
            sort: "description",
            render: (b) => (
              <EditableName canWrite={canWrite} onEdit={() => setEditing(b)}>
                {b.description}
              </EditableName>
            ),
          },
          {
            label: "Kind",
            sort: "type",
            render: (b) => <Badge variant="light">{BENEFIT_LABELS[b.type]}</Badge>,
          },
          { label: "Created", sort: "created_at", render: (b) => formatDate(b.created_at) },
          {
            label: "Actions",
            render: (b) => (
              <RowDeleteButton
                show={canWrite && b.deletable}
                label={`Delete ${b.description}`}
                onClick={() => setDeleting(b)}
              />
            ),
          },
        ]}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New benefit"
        editTitle="Edit benefit"
      >
        {(benefit) => (
          <BenefitForm benefit={benefit} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="benefits"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this benefit?"
        confirmLabel="Delete benefit"
        failure="Could not delete."
      >
        {deleting?.description} is removed from every product; grants already given are revoked.
      </DeleteRowDialog>
    </Stack>
  );
}

const num = (v: unknown) => (typeof v === "number" ? v : undefined);
const str = (v: unknown) => (typeof v === "string" ? v : "");

function BenefitForm({
  benefit,
  organizationId,
  onDone,
}: {
  benefit?: Benefit;
  organizationId: string;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const meters = useQuery(listQuery<Meter>(organizationId, "meters", { limit: 100, is_archived: false }));
  const [type, setType] = useState<BenefitType>(benefit?.type ?? "license_keys");
  const [description, setDescription] = useState(benefit?.description ?? "");
  const [p, setP] = useState<Props>(benefit?.properties ?? {});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const err = (k: string) => errors[`properties.${k}`];
  const put = (patch: Props) => setP({ ...p, ...patch });
  const expires = (p.expires ?? null) as { ttl: number; timeframe: string } | null;
  const activations = (p.activations ?? null) as { limit: number; enable_customer_admin: boolean } | null;

  const save = async () => {
    setRefusal(null);
    if (description.trim().length < 3) {
      setErrors({ description: "A description of 3 to 42 characters." });
      return;
    }
    setSaving(true);
    try {
      const body = { type, description: description.trim(), properties: p };
      if (benefit) await v1(organizationId, `/benefits/${benefit.id}`, { method: "PATCH", body });
      else await v1(organizationId, "/benefits/", { method: "POST", body });
      await invalidate(queryClient, organizationId, "benefits");
      notifications.show({ color: "green", message: benefit ? "Benefit saved." : "Benefit created." });
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
        <Alert color="red" role="alert" title="The benefit was not saved">
          {refusal}
        </Alert>
      )}
      <Select
        label="Kind"
        data={BENEFIT_TYPES.map((t) => ({ value: t, label: BENEFIT_LABELS[t] }))}
        value={type}
        onChange={(v) => {
          if (!v) return;
          setType(v as BenefitType);
          setP(v === "meter_credit" ? { rollover: false } : {});
        }}
        allowDeselect={false}
        disabled={Boolean(benefit)}
      />
      <TextInput
        label="Description"
        required
        maxLength={42}
        value={description}
        onChange={(e) => setDescription(e.currentTarget.value)}
        error={errors.description}
        description="What the buyer sees, 3 to 42 characters."
      />
      {type === "custom" && (
        <Textarea
          label="Note"
          description="Shown to the buyer after purchase (Markdown)."
          value={str(p.note)}
          onChange={(e) => put({ note: e.currentTarget.value })}
          error={err("note")}
          minRows={3}
        />
      )}
      {type === "discord" && (
        <>
          <TextInput
            label="Server (guild) id"
            required
            value={str(p.guild_id)}
            onChange={(e) => put({ guild_id: e.currentTarget.value })}
            error={err("guild_id")}
          />
          <TextInput
            label="Role id"
            required
            value={str(p.role_id)}
            onChange={(e) => put({ role_id: e.currentTarget.value })}
            error={err("role_id")}
          />
          <Switch
            label="Remove the member from the server when the benefit is revoked"
            checked={p.kick_member === true}
            onChange={(e) => put({ kick_member: e.currentTarget.checked })}
          />
        </>
      )}
      {type === "downloadables" && (
        <Textarea
          label="File ids"
          description="One uploaded file id a line (file upload in the dashboard comes with the files API)."
          value={Array.isArray(p.files) ? (p.files as string[]).join("\n") : ""}
          onChange={(e) => put({ files: e.currentTarget.value.split(/\s+/).filter(Boolean) })}
          error={err("files")}
        />
      )}
      {type === "github_repository" && (
        <Group grow align="flex-start">
          <TextInput
            label="Repository owner"
            required
            value={str(p.repository_owner)}
            onChange={(e) => put({ repository_owner: e.currentTarget.value })}
            error={err("repository_owner")}
          />
          <TextInput
            label="Repository name"
            required
            value={str(p.repository_name)}
            onChange={(e) => put({ repository_name: e.currentTarget.value })}
            error={err("repository_name")}
          />
          <Select
            label="Permission"
            required
            data={["pull", "triage", "push", "maintain", "admin"]}
            value={str(p.permission) || null}
            onChange={(v) => put({ permission: v })}
            error={err("permission")}
          />
        </Group>
      )}
      {type === "license_keys" && (
        <>
          <TextInput
            label="Key prefix"
            maxLength={32}
            value={str(p.prefix)}
            onChange={(e) => put({ prefix: e.currentTarget.value || null })}
            error={err("prefix")}
          />
          <Group align="flex-end">
            <Switch
              label="Keys expire"
              checked={expires !== null}
              onChange={(e) =>
                put({ expires: e.currentTarget.checked ? { ttl: 1, timeframe: "year" } : null })
              }
              mb={8}
            />
            {expires && (
              <>
                <NumberInput
                  label="After"
                  min={1}
                  max={1000}
                  value={expires.ttl}
                  onChange={(v) => put({ expires: { ...expires, ttl: Number(v) } })}
                  error={err("expires.ttl")}
                  w={100}
                />
                <Select
                  aria-label="Timeframe"
                  data={["day", "month", "year"]}
                  value={expires.timeframe}
                  onChange={(v) => v && put({ expires: { ...expires, timeframe: v } })}
                  allowDeselect={false}
                  w={110}
                />
              </>
            )}
          </Group>
          <Group align="flex-end">
            <Switch
              label="Limit activations"
              checked={activations !== null}
              onChange={(e) =>
                put({
                  activations: e.currentTarget.checked ? { limit: 1, enable_customer_admin: false } : null,
                })
              }
              mb={8}
            />
            {activations && (
              <>
                <NumberInput
                  label="Activations"
                  min={1}
                  max={50}
                  value={activations.limit}
                  onChange={(v) => put({ activations: { ...activations, limit: Number(v) } })}
                  error={err("activations.limit")}
                  w={120}
                />
                <Switch
                  label="Customers may deactivate"
                  checked={activations.enable_customer_admin}
                  onChange={(e) =>
                    put({ activations: { ...activations, enable_customer_admin: e.currentTarget.checked } })
                  }
                  mb={8}
                />
              </>
            )}
          </Group>
          <NumberInput
            label="Usage limit"
            description="How many times a key may be used; empty: unlimited."
            min={1}
            value={num(p.limit_usage) ?? ""}
            onChange={(v) => put({ limit_usage: v === "" ? null : Number(v) })}
            error={err("limit_usage")}
            w={200}
          />
        </>
      )}
      {type === "meter_credit" && (
        <>
          <Select
            label="Meter"
            required
            placeholder={meters.data?.items.length ? "Choose a meter" : "Create a meter first"}
            data={(meters.data?.items ?? []).map((m) => ({ value: m.id, label: m.name }))}
            value={str(p.meter_id) || null}
            onChange={(v) => put({ meter_id: v })}
            error={err("meter_id")}
          />
          <NumberInput
            label="Units credited"
            required
            min={1}
            value={num(p.units) ?? ""}
            onChange={(v) => put({ units: v === "" ? undefined : Number(v) })}
            error={err("units")}
            w={200}
          />
          <Switch
            label="Unused units roll over to the next period"
            checked={p.rollover === true}
            onChange={(e) => put({ rollover: e.currentTarget.checked })}
          />
        </>
      )}
      <DialogActions>
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button loading={saving} onClick={() => void save()}>
          {benefit ? "Save benefit" : "Create benefit"}
        </Button>
      </DialogActions>
    </Stack>
  );
}
