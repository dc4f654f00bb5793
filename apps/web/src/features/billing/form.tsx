import {
  Alert,
  MultiSelect,
  type MultiSelectProps,
  NumberInput,
  type NumberInputProps,
  Select,
  type SelectProps,
} from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Control, FieldErrors, FieldPath, FieldValues } from "react-hook-form";
import { get, useController, useFormState } from "react-hook-form";
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
