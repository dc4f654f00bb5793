import { zodResolver } from "@hookform/resolvers/zod";
import { type TeamValues, teamSchema } from "@kassa/contracts/organization";
import { Alert, Button, Group, Stack, TextInput } from "@mantine/core";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  TEAM_NAME_TOO_SHORT: "name",
  TEAM_ALREADY_EXISTS: "name",
} as const;

/** A team's name: creating a team, or renaming one. */
export function TeamNameForm({
  defaultName = "",
  submitLabel,
  label = "Team name",
  onSubmit,
  onCancel,
}: {
  defaultName?: string;
  submitLabel: string;
  label?: string;
  onSubmit: (values: TeamValues) => Promise<ServerError | null>;
  onCancel?: () => void;
}) {
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<TeamValues>({ resolver: zodResolver(teamSchema), defaultValues: { name: defaultName } });
  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else if (!defaultName) reset({ name: "" });
  });
  return (
    <form onSubmit={submit} noValidate aria-label={submitLabel}>
      <Stack gap="sm">
        {errors.root?.server && (
          <Alert color="red" role="alert">
            {errors.root.server.message}
          </Alert>
        )}
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            style={{ flex: 1, minWidth: 200 }}
            label={label}
            required
            data-autofocus
            {...register("name")}
            error={errors.name?.message}
          />
          <Group gap="xs" mt={{ base: 0, xs: 25 }}>
            {onCancel && (
              <Button variant="default" onClick={onCancel}>
                Cancel
              </Button>
            )}
            <Button type="submit" loading={isSubmitting}>
              {submitLabel}
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}
