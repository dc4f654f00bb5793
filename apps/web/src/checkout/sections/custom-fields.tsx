import { Checkbox, NativeSelect, Textarea, TextInput } from "@mantine/core";
import type { AttachedCustomField } from "../api";
import type { Errors } from "../field-errors";

/** The seller's custom fields, in their order, each as its type asks. */
export function CustomFields({
  fields,
  values,
  errors,
  disabled,
  onChange,
}: {
  fields: AttachedCustomField[];
  values: Record<string, string | boolean>;
  errors: Errors;
  disabled: boolean;
  onChange: (slug: string, value: string | boolean) => void;
}) {
  return fields
    .slice()
    .sort((a, b) => a.order - b.order)
    .map((f) => (
      <CustomFieldInput
        key={f.custom_field_id}
        field={f}
        value={values[f.custom_field.slug]}
        error={errors[`custom_field_data.${f.custom_field.slug}`]}
        disabled={disabled}
        onChange={(v) => onChange(f.custom_field.slug, v)}
      />
    ));
}

function CustomFieldInput({
  field,
  value,
  error,
  disabled,
  onChange,
}: {
  field: AttachedCustomField;
  value: string | boolean | undefined;
  error: string | undefined;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const f = field.custom_field;
  const p = f.properties;
  const common = {
    label: p.form_label || f.name,
    description: p.form_help_text || undefined,
    withAsterisk: field.required,
    name: `custom_field_data.${f.slug}`,
    error,
    disabled,
  };
  const text = typeof value === "string" ? value : "";
  switch (f.type) {
    case "checkbox":
      return (
        <Checkbox
          label={common.label}
          description={common.description}
          name={common.name}
          error={error}
          disabled={disabled}
          required={false}
          checked={value === true}
          aria-required={field.required}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case "select":
      return (
        <NativeSelect
          {...common}
          value={text}
          data={[{ value: "", label: p.form_placeholder || "Choose…" }, ...(f.properties.options ?? [])]}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case "number":
      return (
        <TextInput
          {...common}
          type="number"
          inputMode="decimal"
          min={f.properties.ge ?? undefined}
          max={f.properties.le ?? undefined}
          placeholder={p.form_placeholder ?? undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case "date":
      return (
        <TextInput {...common} type="date" value={text} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    default:
      return f.properties.textarea ? (
        <Textarea
          {...common}
          autosize
          minRows={2}
          placeholder={p.form_placeholder ?? undefined}
          maxLength={f.properties.max_length ?? undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      ) : (
        <TextInput
          {...common}
          placeholder={p.form_placeholder ?? undefined}
          maxLength={f.properties.max_length ?? undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
  }
}
