import { zodResolver } from "@hookform/resolvers/zod";
import { CustomFieldCreate, CustomFieldUpdate, CUSTOM_FIELD_TYPES as WIRE_TYPES } from "@kassa/contracts/v1";
import { ActionIcon, Button, Group, Stack, Switch, Text, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { useMemo, useRef } from "react";
import { Controller, useFieldArray, useForm } from "react-hook-form";
import { z } from "zod";
import type { FieldMap } from "../../lib/server-errors";
import { CUSTOM_FIELD_TYPES, type CustomField } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { EditorForm, FormActions, NumberField, SelectField, submitRow } from "../billing/form";
import { TYPE_LABELS } from "./custom-fields-table";
import { useSaveCustomField } from "./queries";

/** The field as typed: every property of every type, empty strings for "none". */
const CustomFieldFormShape = z.object({
  type: z.enum(WIRE_TYPES),
  name: z.string(),
  slug: z.string(),
  properties: z.object({
    form_label: z.string(),
    form_help_text: z.string(),
    form_placeholder: z.string(),
    textarea: z.boolean(),
    min_length: z.number().optional(),
    max_length: z.number().optional(),
    ge: z.number().optional(),
    le: z.number().optional(),
    options: z.array(z.object({ value: z.string(), label: z.string() })),
  }),
});
export type CustomFieldFormValues = z.output<typeof CustomFieldFormShape>;
type FormProperties = CustomFieldFormValues["properties"];

const emptyProperties: FormProperties = {
  form_label: "",
  form_help_text: "",
  form_placeholder: "",
  textarea: false,
  options: [],
};

/** The request body: the properties of the field's type, without the empty ones. */
export function customFieldBody(v: CustomFieldFormValues): z.input<typeof CustomFieldCreate> {
  const p = v.properties;
  const text = (s: string) => (s === "" ? undefined : s);
  const common = {
    form_label: text(p.form_label),
    form_help_text: text(p.form_help_text),
    ...(v.type === "checkbox" ? {} : { form_placeholder: text(p.form_placeholder) }),
  };
  const properties =
    v.type === "text"
      ? {
          ...common,
          ...(p.textarea ? { textarea: true } : {}),
          min_length: p.min_length,
          max_length: p.max_length,
        }
      : v.type === "number" || v.type === "date"
        ? { ...common, ge: p.ge, le: p.le }
        : v.type === "select"
          ? { ...common, options: p.options }
          : common;
  const defined = Object.fromEntries(Object.entries(properties).filter(([, x]) => x !== undefined));
  return { type: v.type, name: v.name.trim(), slug: v.slug.trim(), properties: defined } as z.input<
    typeof CustomFieldCreate
  >;
}

const FIELDS: FieldMap = { type: "type", name: "name", slug: "slug", "properties.*": "properties" };

const valuesOf = (f: CustomField | undefined): CustomFieldFormValues => {
  const p = (f?.properties ?? {}) as Partial<FormProperties>;
  return {
    type: f?.type ?? "text",
    name: f?.name ?? "",
    slug: f?.slug ?? "",
    properties: { ...emptyProperties, ...p, options: p.options ?? [], textarea: p.textarea === true },
  };
};

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

/** Creates a custom field, or edits `field` (whose type stays); `onDone` when saved or cancelled. */
export function CustomFieldForm({
  field,
  organizationId,
  onDone,
}: {
  field?: CustomField | undefined;
  organizationId: string;
  onDone: () => void;
}) {
  const save = useSaveCustomField(organizationId);
  const schema = useMemo(
    () =>
      checkedAgainst(
        CustomFieldFormShape,
        field ? CustomFieldUpdate : CustomFieldCreate,
        customFieldBody,
        FIELDS,
      ),
    [field],
  );
  const defaults = useMemo(() => valuesOf(field), [field]);
  const {
    register,
    control,
    handleSubmit,
    setError,
    setValue,
    getValues,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<CustomFieldFormValues>({ resolver: zodResolver(schema), defaultValues: defaults });
  const options = useFieldArray({ control, name: "properties.options" });
  const type = watch("type");
  const lastName = useRef(defaults.name);
  const pe = errors.properties;

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) => save.mutateAsync({ id: field?.id, body: customFieldBody(values) }),
    saved: field ? "Field saved." : "Field created.",
    onSaved: () => onDone(),
  });

  return (
    <EditorForm onSubmit={submit} errors={errors} refusalTitle="The field was not saved">
      <SelectField
        control={control}
        name="type"
        label="Type"
        data={CUSTOM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
        disabled={Boolean(field)}
        onValueChange={() => {
          setValue("properties", emptyProperties);
          options.replace([]);
        }}
      />
      <TextInput
        label="Name"
        required
        {...register("name", {
          onChange: (e: { target: { value: string } }) => {
            const v = e.target.value;
            if (!field && getValues("slug") === slugOf(lastName.current)) setValue("slug", slugOf(v));
            lastName.current = v;
          },
        })}
        error={errors.name?.message}
      />
      <TextInput
        label="Slug"
        required
        description="The key of the answer in checkout and order data."
        {...register("slug")}
        error={errors.slug?.message}
      />
      <Group grow>
        <TextInput
          label="Label at checkout"
          {...register("properties.form_label")}
          error={pe?.form_label?.message}
        />
        <TextInput
          label="Help text"
          {...register("properties.form_help_text")}
          error={pe?.form_help_text?.message}
        />
        {type !== "checkbox" && (
          <TextInput
            label="Placeholder"
            {...register("properties.form_placeholder")}
            error={pe?.form_placeholder?.message}
          />
        )}
      </Group>
      {type === "text" && (
        <Group align="flex-end">
          <NumberField
            control={control}
            name="properties.min_length"
            label="Minimum length"
            min={0}
            w={160}
          />
          <NumberField
            control={control}
            name="properties.max_length"
            label="Maximum length"
            min={0}
            w={160}
          />
          <Controller
            control={control}
            name="properties.textarea"
            render={({ field: f }) => (
              <Switch
                label="Several lines"
                checked={f.value}
                onChange={(e) => f.onChange(e.currentTarget.checked)}
                mb={8}
              />
            )}
          />
        </Group>
      )}
      {(type === "number" || type === "date") && (
        <Group>
          <NumberField
            control={control}
            name="properties.ge"
            label={type === "date" ? "Earliest (unix time)" : "Minimum"}
            w={200}
          />
          <NumberField
            control={control}
            name="properties.le"
            label={type === "date" ? "Latest (unix time)" : "Maximum"}
            w={200}
          />
        </Group>
      )}
      {type === "select" && (
        <Stack gap="xs">
          <Text size="sm" fw={500}>
            Choices
          </Text>
          {options.fields.map((o, i) => (
            <Group key={o.id} gap="xs">
              <TextInput
                aria-label={`Choice ${i + 1} value`}
                placeholder="value"
                {...register(`properties.options.${i}.value`)}
                error={pe?.options?.[i]?.value?.message}
              />
              <TextInput
                aria-label={`Choice ${i + 1} label`}
                placeholder="label"
                {...register(`properties.options.${i}.label`)}
                error={pe?.options?.[i]?.label?.message}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove choice ${i + 1}`}
                onClick={() => options.remove(i)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
          {(pe?.options?.message ?? pe?.options?.root?.message) && (
            <Text c="red" size="sm">
              {pe?.options?.message ?? pe?.options?.root?.message}
            </Text>
          )}
          <Button
            size="xs"
            variant="subtle"
            w="fit-content"
            leftSection={<IconPlus size={14} />}
            onClick={() => options.append({ value: "", label: "" })}
          >
            Add a choice
          </Button>
        </Stack>
      )}
      <FormActions
        onCancel={onDone}
        submitting={isSubmitting}
        submitLabel={field ? "Save field" : "Create field"}
      />
    </EditorForm>
  );
}
