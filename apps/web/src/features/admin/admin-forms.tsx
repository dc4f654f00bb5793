import { zodResolver } from "@hookform/resolvers/zod";
import {
  type AdminBanUserValues,
  type AdminCreateUserValues,
  type AdminSetPasswordValues,
  type AdminSetRoleValues,
  adminBanUserSchema,
  adminCreateUserSchema,
  adminSetPasswordSchema,
  adminSetRoleSchema,
  BAN_EXPIRY_CHOICES,
  type LengthRules,
  PLATFORM_ROLES,
} from "@kassa/contracts";
import { Alert, Button, Group, NativeSelect, PasswordInput, Stack, Textarea, TextInput } from "@mantine/core";
import { useMemo, useState } from "react";
import { type FieldValues, type UseFormReturn, useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import { applyServerError } from "../../lib/server-errors";

type Submit<T> = (values: T) => Promise<ServerError | null>;

const ROLE_OPTIONS = PLATFORM_ROLES.map((value) => ({
  value,
  label: value === "admin" ? "Admin (manages every user)" : "User",
}));
const BAN_LABELS: Record<(typeof BAN_EXPIRY_CHOICES)[number], string> = {
  "1": "1 day",
  "7": "7 days",
  "30": "30 days",
  never: "Until unbanned",
};

/** Runs a form's submit against the server and places its refusal (shared by the admin forms). */
function useServerSubmit<T extends FieldValues>(
  form: UseFormReturn<T>,
  onSubmit: Submit<T>,
  fieldByCode: Partial<Record<string, import("react-hook-form").Path<T>>>,
  after?: (values: T) => void,
) {
  return form.handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, form.setError, fieldByCode);
    else after?.(values);
  });
}

function RootError({ message, title }: { message: string | undefined; title: string }) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {message}
    </Alert>
  );
}

export function CreateUserForm({
  rules,
  onSubmit,
}: {
  rules: LengthRules;
  onSubmit: Submit<AdminCreateUserValues>;
}) {
  const schema = useMemo(() => adminCreateUserSchema(rules), [rules]);
  const form = useForm<AdminCreateUserValues>({
    resolver: zodResolver(schema),
    defaultValues: { name: "", email: "", password: "", role: "user" },
  });
  const { register, formState } = form;
  const { errors } = formState;
  const submit = useServerSubmit(form, onSubmit, {
    USER_ALREADY_EXISTS: "email",
    USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "email",
    INVALID_EMAIL: "email",
    PASSWORD_TOO_SHORT: "password",
    PASSWORD_TOO_LONG: "password",
    YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE: "role",
  });
  return (
    <form onSubmit={submit} noValidate aria-label="Create user">
      <Stack gap="md">
        <RootError title="Could not create the user" message={errors.root?.server?.message} />
        <TextInput label="Name" required {...register("name")} error={errors.name?.message} />
        <TextInput
          label="E-mail"
          type="email"
          required
          {...register("email")}
          error={errors.email?.message}
        />
        <PasswordInput
          label="Password"
          description={`${rules.password.min} to ${rules.password.max} characters. They verify their address when they first sign in.`}
          autoComplete="new-password"
          required
          {...register("password")}
          error={errors.password?.message}
          aria-invalid={errors.password ? true : undefined}
        />
        <NativeSelect label="Role" data={ROLE_OPTIONS} {...register("role")} error={errors.role?.message} />
        <Group justify="flex-end">
          <Button type="submit" loading={formState.isSubmitting}>
            Create user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function SetRoleForm({ role, onSubmit }: { role: string; onSubmit: Submit<AdminSetRoleValues> }) {
  const [saved, setSaved] = useState(false);
  const form = useForm<AdminSetRoleValues>({
    resolver: zodResolver(adminSetRoleSchema()),
    defaultValues: { role: role === "admin" ? "admin" : "user" },
  });
  const { errors } = form.formState;
  const submit = useServerSubmit(
    form,
    async (v) => {
      setSaved(false);
      return onSubmit(v);
    },
    { YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE: "role", INVALID_ROLE_TYPE: "role" },
    () => setSaved(true),
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Set role">
      <Stack gap="sm">
        <RootError title="Could not set the role" message={errors.root?.server?.message} />
        <Group align="flex-end" gap="sm">
          <NativeSelect
            label="Role"
            data={ROLE_OPTIONS}
            {...form.register("role")}
            error={errors.role?.message}
          />
          <Button type="submit" variant="default" loading={form.formState.isSubmitting}>
            Save role
          </Button>
        </Group>
        {saved && (
          <Alert color="green" role="status">
            The role is saved.
          </Alert>
        )}
      </Stack>
    </form>
  );
}

export function BanUserForm({ onSubmit }: { onSubmit: Submit<AdminBanUserValues> }) {
  const form = useForm<AdminBanUserValues>({
    resolver: zodResolver(adminBanUserSchema()),
    defaultValues: { reason: "", expiresIn: "7" },
  });
  const { errors } = form.formState;
  // The refusals of ban-user (not allowed, yourself) concern no field: they show above the form.
  const submit = useServerSubmit(form, onSubmit, {});
  return (
    <form onSubmit={submit} noValidate aria-label="Ban user">
      <Stack gap="sm">
        <RootError title="Could not ban the user" message={errors.root?.server?.message} />
        <Textarea
          label="Reason"
          description="Shown to no one but admins."
          rows={2}
          {...form.register("reason")}
          error={errors.reason?.message}
        />
        <NativeSelect
          label="Ban for"
          data={BAN_EXPIRY_CHOICES.map((value) => ({ value, label: BAN_LABELS[value] }))}
          {...form.register("expiresIn")}
          error={errors.expiresIn?.message}
        />
        <Group justify="flex-end">
          <Button type="submit" color="red" loading={form.formState.isSubmitting}>
            Ban user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function SetPasswordForm({
  rules,
  onSubmit,
}: {
  rules: LengthRules;
  onSubmit: Submit<AdminSetPasswordValues>;
}) {
  const schema = useMemo(() => adminSetPasswordSchema(rules), [rules]);
  const [saved, setSaved] = useState(false);
  const form = useForm<AdminSetPasswordValues>({
    resolver: zodResolver(schema),
    defaultValues: { newPassword: "" },
  });
  const { errors } = form.formState;
  const submit = useServerSubmit(
    form,
    async (v) => {
      setSaved(false);
      return onSubmit(v);
    },
    { PASSWORD_TOO_SHORT: "newPassword", PASSWORD_TOO_LONG: "newPassword" },
    () => {
      setSaved(true);
      form.reset();
    },
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Set password">
      <Stack gap="sm">
        <RootError title="Could not set the password" message={errors.root?.server?.message} />
        {saved && (
          <Alert color="green" role="status">
            The new password is set.
          </Alert>
        )}
        <PasswordInput
          label="New password"
          description={`${rules.password.min} to ${rules.password.max} characters.`}
          autoComplete="new-password"
          required
          {...form.register("newPassword")}
          error={errors.newPassword?.message}
          aria-invalid={errors.newPassword ? true : undefined}
        />
        <Group justify="flex-end">
          <Button type="submit" variant="default" loading={form.formState.isSubmitting}>
            Set password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
