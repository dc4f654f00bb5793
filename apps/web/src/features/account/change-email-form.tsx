import { zodResolver } from "@hookform/resolvers/zod";
import { type ChangeEmailValues, changeEmailSchema } from "@kassa/contracts";
import { Alert, Button, Group, Stack, TextInput } from "@mantine/core";
import { useState } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import "../../lib/dashboard-messages";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  EMAIL_IS_THE_SAME: "newEmail",
  COULDNT_UPDATE_YOUR_EMAIL: "newEmail",
  INVALID_EMAIL: "newEmail",
  CHANGE_EMAIL_DISABLED: "newEmail",
} as const;

export interface ChangeEmailFormProps {
  currentEmail: string;
  onSubmit: (values: ChangeEmailValues) => Promise<ServerError | null>;
}

export function ChangeEmailForm({ currentEmail, onSubmit }: ChangeEmailFormProps) {
  const [requested, setRequested] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<ChangeEmailValues>({
    resolver: zodResolver(changeEmailSchema()),
    defaultValues: { newEmail: "" },
  });

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else {
      setRequested(values.newEmail.toLowerCase());
      reset({ newEmail: "" });
    }
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Change e-mail">
      <Stack gap="md">
        {requested && (
          <Alert color="green" role="status" title="Check your inbox">
            We mailed a confirmation link to {currentEmail}. Once you open it, your address becomes{" "}
            {requested} and a verification link goes there.
          </Alert>
        )}
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not change your e-mail">
            {errors.root.server.message}
          </Alert>
        )}
        <TextInput
          label="New e-mail"
          type="email"
          autoComplete="email"
          required
          {...register("newEmail")}
          error={errors.newEmail?.message}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={isSubmitting}>
            Send confirmation link
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
