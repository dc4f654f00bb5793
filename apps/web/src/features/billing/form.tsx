import {
  Alert,
  Button,
  MultiSelect,
  type MultiSelectProps,
  NumberInput,
  type NumberInputProps,
  Select,
  type SelectProps,
  Stack,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEventHandler, type ReactNode, useState } from "react";
import type {
  Control,
  FieldErrors,
  FieldPath,
  FieldValues,
  UseFormHandleSubmit,
  UseFormSetError,
} from "react-hook-form";
import { get, useController, useFormState } from "react-hook-form";
import { DialogActions } from "../../components/dialog-actions";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import { invalidate, v1 } from "../../lib/v1";

/**
 * The pieces every billing form is made of (react-hook-form with the request schemas of
 * `@kassa/contracts/v1`, see `lib/wire-form.ts`): Mantine's controlled inputs bound to a form
 * field, the form's root error, and the save of a row.
 */

/** The form's refusal that concerns no field (`root.server`), under its title. */
export function FormRefusal({ errors, title }: { errors: FieldErrors; title: string }) {
  const message = errors.root?.server?.message;
  if (!message) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {message}
    </Alert>
  );
}

type Bound<T extends FieldValues> = { control: Control<T>; name: FieldPath<T> };

/**
 * A number field; empty is `undefined`. An emptied field shows empty: react-hook-form gives a
 * field set to `undefined` its default value back, which would show a stored number the form
 * no longer holds (and then append to it what is typed).
 */
export function NumberField<T extends FieldValues>({
  control,
  name,
  ...props
}: Bound<T> & Omit<NumberInputProps, "value" | "onChange" | "name">) {
  const { field, fieldState } = useController({ control, name });
  const { defaultValues } = useFormState({ control, name });
  const [emptied, setEmptied] = useState(false);
  const blank = emptied && Object.is(field.value, get(defaultValues, name));
  return (
    <NumberInput
      {...props}
      ref={field.ref}
      name={field.name}
      value={blank ? "" : (field.value ?? "")}
      onChange={(v) => {
        setEmptied(v === "");
        field.onChange(v === "" ? undefined : Number(v));
      }}
      onBlur={field.onBlur}
      error={fieldState.error?.message}
    />
  );
}

/**
 * A choice of one value (never cleared unless `clearable`; cleared is `null`); `onValueChange`
 * runs after the field took a new value.
 */
export function SelectField<T extends FieldValues>({
  control,
  name,
  onValueChange,
  ...props
}: Bound<T> &
  Omit<SelectProps, "value" | "onChange" | "name"> & { onValueChange?: (value: string | null) => void }) {
  const { field, fieldState } = useController({ control, name });
  return (
    <Select
      allowDeselect={false}
      {...props}
      ref={field.ref}
      name={field.name}
      value={field.value ?? null}
      onChange={(v) => {
        field.onChange(v);
        onValueChange?.(v);
      }}
      onBlur={field.onBlur}
      error={fieldState.error?.message}
    />
  );
}

/** A choice of several values. */
export function MultiSelectField<T extends FieldValues>({
  control,
  name,
  ...props
}: Bound<T> & Omit<MultiSelectProps, "value" | "onChange" | "name">) {
  const { field, fieldState } = useController({ control, name });
  return (
    <MultiSelect
      {...props}
      ref={field.ref}
      name={field.name}
      value={field.value ?? []}
      onChange={field.onChange}
      onBlur={field.onBlur}
      error={fieldState.error?.message}
    />
  );
}

/**
 * Creates (`POST /v1/{resource}/`) or updates (`PATCH /v1/{resource}/{id}`) a row of a
 * resource, then marks the organization's lists of it stale. Resolves the answer.
 */
export function useSaveRow<Body, Answer = unknown>(organizationId: string, resource: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string | undefined; body: Body }) =>
      id
        ? v1<Answer>(organizationId, `/${resource}/${id}`, { method: "PATCH", body })
        : v1<Answer>(organizationId, `/${resource}/`, { method: "POST", body }),
    onSuccess: () => invalidate(queryClient, organizationId, resource),
  });
}

/**
 * The submit handler of a row's editor form: `save` the checked values; once saved, a green
 * notice says `saved` and `onSaved` gets the server's answer. A refusal is put on the form's
 * fields (`fields` maps the server's paths to them), or above them when it names none.
 */
export function submitRow<V extends FieldValues, Answer>(
  form: { handleSubmit: UseFormHandleSubmit<V>; setError: UseFormSetError<V> },
  fields: FieldMap,
  {
    save,
    saved,
    onSaved,
  }: { save: (values: V) => Promise<Answer>; saved: string; onSaved: (answer: Answer) => void },
) {
  return form.handleSubmit(async (values) => {
    try {
      const answer = await save(values);
      notifications.show({ color: "green", message: saved });
      onSaved(answer);
    } catch (e) {
      applyServerError(refusalOf(e), form.setError, {}, fields);
    }
  });
}

/**
 * A row editor's form: its fields in a column, under the refusal that concerns none of them
 * (`FormRefusal`, titled `refusalTitle`). The browser's own checks are off: the schema checks.
 */
export function EditorForm({
  onSubmit,
  errors,
  refusalTitle,
  children,
}: {
  onSubmit: FormEventHandler<HTMLFormElement>;
  errors: FieldErrors;
  refusalTitle: string;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <FormRefusal errors={errors} title={refusalTitle} />
        {children}
      </Stack>
    </form>
  );
}

/** The Cancel and submit buttons of a form, side by side; `submitting` spins the submit one. */
export function FormButtons({
  onCancel,
  submitting,
  submitLabel,
}: {
  onCancel: () => void;
  submitting: boolean;
  submitLabel: string;
}) {
  return (
    <>
      <Button variant="default" onClick={() => onCancel()}>
        Cancel
      </Button>
      <Button type="submit" loading={submitting}>
        {submitLabel}
      </Button>
    </>
  );
}

/** A dialog form's foot (`DialogActions`, in view while the fields scroll): Cancel and submit. */
export function FormActions(props: { onCancel: () => void; submitting: boolean; submitLabel: string }) {
  return (
    <DialogActions>
      <FormButtons {...props} />
    </DialogActions>
  );
}

/**
 * A form's errors under `prefix` as messages by path (`filter.clauses.0.property`), for the
 * editors of nested values that take them so (the filter builder, the price editor).
 */
export function errorsByPath(errors: FieldErrors, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (node: unknown, path: string) => {
    if (typeof node !== "object" || node === null) return;
    const message = (node as { message?: unknown }).message;
    if (typeof message === "string" && path) out[path] = message;
    for (const [key, child] of Object.entries(node)) {
      if (key === "ref" || key === "message" || key === "type" || key === "types") continue;
      walk(child, key === "root" ? path : path ? `${path}.${key}` : key);
    }
  };
  walk(errors, "");
  if (!prefix) return out;
  return Object.fromEntries(Object.entries(out).filter(([k]) => k === prefix || k.startsWith(`${prefix}.`)));
}
