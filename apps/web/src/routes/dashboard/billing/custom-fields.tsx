import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconForms, IconPlus, IconTrash } from "@tabler/icons-react";
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
  CUSTOM_FIELD_TYPES,
  type CustomField,
  type CustomFieldType,
  invalidate,
  listQuery,
  V1Error,
  v1,
} from "../../../lib/v1";

const TYPE_LABELS: Record<CustomFieldType, string> = {
  text: "Text",
  number: "Number",
  date: "Date",
  checkbox: "Checkbox",
  select: "Choice list",
};

type Props = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" ? v : "");

/** `/dashboard/{slug}/custom-fields`: questions asked at checkout, attached to products. */
export function CustomFieldsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, set, page, limit } = useListParams();
  const type = typeof search.type === "string" ? search.type : undefined;
  const fields = useQuery(
    listQuery<CustomField>(organizationId, "custom-fields", {
      page,
      limit,
      sorting: search.sorting,
      type,
      query: search.query,
    }),
  );
  const [editing, setEditing] = useState<Editing<CustomField>>(null);
  const [deleting, setDeleting] = useState<CustomField | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Custom fields"
        description="Extra questions buyers answer at checkout (a company id, a date, a choice); attach them to products."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New field
            </Button>
          )
        }
      />
      <Select
        label="Type"
        placeholder="Every type"
        clearable
        data={CUSTOM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
        value={type ?? null}
        onChange={(v) => set({ type: v ?? undefined })}
        w={220}
      />
      <ListView
        query={fields}
        label="custom fields"
        caption="Custom fields"
        empty={{
          icon: IconForms,
          title: type ? "No field of this type" : "No custom fields yet",
          children: canWrite
            ? "Create a field, then attach it to a product (required or optional) in the product editor."
            : "An owner or admin of this organization creates custom fields.",
        }}
        columns={[
          {
            label: "Name",
            sort: "name",
            render: (f) => (
              <EditableName canWrite={canWrite} onEdit={() => setEditing(f)}>
                {f.name}
              </EditableName>
            ),
          },
          { label: "Slug", sort: "slug", render: (f) => <code>{f.slug}</code> },
          {
            label: "Type",
            sort: "type",
            render: (f) => <Badge variant="light">{TYPE_LABELS[f.type]}</Badge>,
          },
          { label: "Created", sort: "created_at", render: (f) => formatDate(f.created_at) },
          {
            label: "Actions",
            render: (f) => (
              <RowDeleteButton show={canWrite} label={`Delete ${f.name}`} onClick={() => setDeleting(f)} />
            ),
          },
        ]}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New custom field"
        editTitle="Edit custom field"
      >
        {(field) => (
          <FieldForm field={field} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="custom-fields"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this field?"
        confirmLabel="Delete field"
        failure="Refused."
      >
        {deleting?.name} is removed from every product's checkout.
      </DeleteRowDialog>
    </Stack>
  );
}

function FieldForm({
  field,
  organizationId,
  onDone,
}: {
  field?: CustomField;
  organizationId: string;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [type, setType] = useState<CustomFieldType>(field?.type ?? "text");
  const [name, setName] = useState(field?.name ?? "");
  const [slug, setSlug] = useState(field?.slug ?? "");
  const [p, setP] = useState<Props>(field?.properties ?? {});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const put = (patch: Props) => {
    const next = { ...p, ...patch };
    for (const k of Object.keys(next)) if (next[k] === "" || next[k] === undefined) delete next[k];
    setP(next);
  };
  const err = (k: string) => errors[`properties.${k}`];
  const options = (Array.isArray(p.options) ? p.options : []) as { value: string; label: string }[];

  const save = async () => {
    setRefusal(null);
    setSaving(true);
    try {
      const body = { type, name: name.trim(), slug: slug.trim(), properties: p };
      if (field) await v1(organizationId, `/custom-fields/${field.id}`, { method: "PATCH", body });
      else await v1(organizationId, "/custom-fields/", { method: "POST", body });
      await invalidate(queryClient, organizationId, "custom-fields");
      notifications.show({ color: "green", message: field ? "Field saved." : "Field created." });
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
        <Alert color="red" role="alert" title="The field was not saved">
          {refusal}
        </Alert>
      )}
      <Select
        label="Type"
        data={CUSTOM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
        value={type}
        onChange={(v) => {
          if (!v) return;
          setType(v as CustomFieldType);
          setP({});
        }}
        allowDeselect={false}
        disabled={Boolean(field)}
      />
      <TextInput
        label="Name"
        required
        value={name}
        onChange={(e) => {
          const v = e.currentTarget.value;
          if (
            !field &&
            slug ===
              name
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "_")
                .replace(/^_|_$/g, "")
          )
            setSlug(
              v
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "_")
                .replace(/^_|_$/g, ""),
            );
          setName(v);
        }}
        error={errors.name}
      />
      <TextInput
        label="Slug"
        required
        description="The key of the answer in checkout and order data."
        value={slug}
        onChange={(e) => setSlug(e.currentTarget.value)}
        error={errors.slug}
      />
      <Group grow>
        <TextInput
          label="Label at checkout"
          value={str(p.form_label)}
          onChange={(e) => put({ form_label: e.currentTarget.value })}
          error={err("form_label")}
        />
        <TextInput
          label="Help text"
          value={str(p.form_help_text)}
          onChange={(e) => put({ form_help_text: e.currentTarget.value })}
          error={err("form_help_text")}
        />
        {type !== "checkbox" && (
          <TextInput
            label="Placeholder"
            value={str(p.form_placeholder)}
            onChange={(e) => put({ form_placeholder: e.currentTarget.value })}
            error={err("form_placeholder")}
          />
        )}
      </Group>
      {type === "text" && (
        <Group align="flex-end">
          <NumberInput
            label="Minimum length"
            min={0}
            value={num(p.min_length)}
            onChange={(v) => put({ min_length: v === "" ? undefined : Number(v) })}
            error={err("min_length")}
            w={160}
          />
          <NumberInput
            label="Maximum length"
            min={0}
            value={num(p.max_length)}
            onChange={(v) => put({ max_length: v === "" ? undefined : Number(v) })}
            error={err("max_length")}
            w={160}
          />
          <Switch
            label="Several lines"
            checked={p.textarea === true}
            onChange={(e) => put({ textarea: e.currentTarget.checked })}
            mb={8}
          />
        </Group>
      )}
      {(type === "number" || type === "date") && (
        <Group>
          <NumberInput
            label={type === "date" ? "Earliest (unix time)" : "Minimum"}
            value={num(p.ge)}
            onChange={(v) => put({ ge: v === "" ? undefined : Number(v) })}
            error={err("ge")}
            w={200}
          />
          <NumberInput
            label={type === "date" ? "Latest (unix time)" : "Maximum"}
            value={num(p.le)}
            onChange={(v) => put({ le: v === "" ? undefined : Number(v) })}
            error={err("le")}
            w={200}
          />
        </Group>
      )}
      {type === "select" && (
        <Stack gap="xs">
          <Text size="sm" fw={500}>
            Choices
          </Text>
          {options.map((o, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
            <Group key={i} gap="xs">
              <TextInput
                aria-label={`Choice ${i + 1} value`}
                placeholder="value"
                value={o.value}
                onChange={(e) =>
                  put({
                    options: options.map((x, j) => (j === i ? { ...x, value: e.currentTarget.value } : x)),
                  })
                }
                error={err(`options.${i}.value`)}
              />
              <TextInput
                aria-label={`Choice ${i + 1} label`}
                placeholder="label"
                value={o.label}
                onChange={(e) =>
                  put({
                    options: options.map((x, j) => (j === i ? { ...x, label: e.currentTarget.value } : x)),
                  })
                }
                error={err(`options.${i}.label`)}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove choice ${i + 1}`}
                onClick={() => put({ options: options.filter((_, j) => j !== i) })}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
          {err("options") && (
            <Text c="red" size="sm">
              {err("options")}
            </Text>
          )}
          <Button
            size="xs"
            variant="subtle"
            w="fit-content"
            leftSection={<IconPlus size={14} />}
            onClick={() => put({ options: [...options, { value: "", label: "" }] })}
          >
            Add a choice
          </Button>
        </Stack>
      )}
      <DialogActions>
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button loading={saving} onClick={() => void save()}>
          {field ? "Save field" : "Create field"}
        </Button>
      </DialogActions>
    </Stack>
  );
}
