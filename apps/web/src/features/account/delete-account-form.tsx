import { zodResolver } from "@hookform/resolvers/zod";
import { DELETE_ACCOUNT_PHRASE, type DeleteAccountValues, deleteAccountSchema } from "@kassa/contracts";
import { Alert, Button, Group, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import "../../lib/dashboard-messages";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  INVALID_PASSWORD: "password",
  CREDENTIAL_ACCOUNT_NOT_FOUND: "password",
  USER_CANNOT_BE_DELETED: "password",
} as const;

export interface DeleteAccountFormProps {
  /** Whether the person has a password (a credential account); without one, only the mailed link. */
  hasPassword: boolean;
  /**
   * Sends the deletion. Resolves with the server's refusal, "deleted" when the account is gone,
   * or "mailed" when the server sent a confirmation link instead.
   */
  onSubmit: (values: DeleteAccountValues) => Promise<ServerError | "deleted" | "mailed">;
}

export function DeleteAccountForm({ hasPassword, onSubmit }: DeleteAccountFormProps) {
  const [mailed, setMailed] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<DeleteAccountValues>({
    resolver: zodResolver(deleteAccountSchema()),
    defaultValues: { password: "", confirmation: "" },
  });

  const submit = handleSubmit(async (values) => {
    const answer = await onSubmit(values);
    if (answer === "mailed") setMailed(true);
    else if (answer !== "deleted") applyServerError(answer, setError, FIELD_BY_CODE);
  });

  if (mailed) {
    return (
      <Alert color="orange" role="status" title="Check your inbox">
        We mailed you a link to confirm the deletion. Your account is deleted when you open it; until then
        nothing changes.
      </Alert>
    );
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Delete account">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not delete your account">
            {errors.root.server.message}
          </Alert>
        )}
        {hasPassword && (
          <PasswordInput
            label="Password"
            description="Enter it to delete at once. Leave it empty to get a confirmation link by mail instead."
            autoComplete="current-password"
            {...register("password")}
            error={errors.password?.message}
            aria-invalid={errors.password ? true : undefined}
          />
        )}
        {!hasPassword && (
          <Text size="sm">
            You sign in without a password: we will mail you a link to confirm the deletion. This works only
            with a recent sign-in; if it is refused, sign out and in again first.
          </Text>
        )}
        <TextInput
          label={`Type "${DELETE_ACCOUNT_PHRASE}" to confirm`}
          autoComplete="off"
          required
          {...register("confirmation")}
          error={errors.confirmation?.message}
        />
        <Group justify="flex-end">
          <Button type="submit" color="red" loading={isSubmitting}>
            Delete my account
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
