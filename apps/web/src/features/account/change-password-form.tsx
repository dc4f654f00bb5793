import { zodResolver } from "@hookform/resolvers/zod";
import { type ChangePasswordValues, changePasswordSchema, type LengthRules } from "@kassa/contracts";
import { Alert, Button, Checkbox, Group, PasswordInput, Stack } from "@mantine/core";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import "../../lib/dashboard-messages";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  INVALID_PASSWORD: "currentPassword",
  CREDENTIAL_ACCOUNT_NOT_FOUND: "currentPassword",
  PASSWORD_TOO_SHORT: "newPassword",
  PASSWORD_TOO_LONG: "newPassword",
} as const;

export interface ChangePasswordFormProps {
  rules: LengthRules;
  onSubmit: (values: ChangePasswordValues) => Promise<ServerError | null>;
}

export function ChangePasswordForm({ rules, onSubmit }: ChangePasswordFormProps) {
  const schema = useMemo(() => changePasswordSchema(rules), [rules]);
  const [done, setDone] = useState<{ revoked: boolean } | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<ChangePasswordValues>({
    resolver: zodResolver(schema),
    defaultValues: { currentPassword: "", newPassword: "", confirm: "", revokeOtherSessions: true },
  });

  const submit = handleSubmit(async (values) => {
    setDone(null);
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else {
      setDone({ revoked: values.revokeOtherSessions });
      reset();
    }
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Change password">
      <Stack gap="md">
        {done && (
          <Alert color="green" role="status" title="Your password is changed">
            {done.revoked ? "Your other devices are signed out." : "Your other devices stay signed in."}
          </Alert>
        )}
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not change your password">
            {errors.root.server.message}
          </Alert>
        )}
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          required
          {...register("currentPassword")}
          error={errors.currentPassword?.message}
          aria-invalid={errors.currentPassword ? true : undefined}
        />
        <PasswordInput
          label="New password"
          description={`${rules.password.min} to ${rules.password.max} characters.`}
          autoComplete="new-password"
          required
          {...register("newPassword")}
          error={errors.newPassword?.message}
          aria-invalid={errors.newPassword ? true : undefined}
        />
        <PasswordInput
          label="Repeat the new password"
          autoComplete="new-password"
          required
          {...register("confirm")}
          error={errors.confirm?.message}
          aria-invalid={errors.confirm ? true : undefined}
        />
        <Checkbox
          label="Sign out other devices"
          description="Every other session of yours ends; this one stays signed in."
          {...register("revokeOtherSessions")}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={isSubmitting}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
