import { zodResolver } from "@hookform/resolvers/zod";
import { API_KEY_EXPIRY_CHOICES, type ApiKeyCreateValues, apiKeyCreateSchema } from "@kassa/contracts";
import { Alert, Button, Group, NativeSelect, Stack, TextInput } from "@mantine/core";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import "../../lib/dashboard-messages";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  EXPIRES_IN_IS_TOO_SMALL: "expiresIn",
  EXPIRES_IN_IS_TOO_LARGE: "expiresIn",
  KEY_DISABLED_EXPIRATION: "expiresIn",
  INVALID_NAME_LENGTH: "name",
  NAME_REQUIRED: "name",
} as const;

const EXPIRY_LABELS: Record<(typeof API_KEY_EXPIRY_CHOICES)[number], string> = {
  "7": "In 7 days",
  "30": "In 30 days",
  "90": "In 90 days",
  "365": "In a year",
  never: "Never",
};

export interface CreateApiKeyFormProps {
  onSubmit: (values: ApiKeyCreateValues) => Promise<ServerError | null>;
}

export function CreateApiKeyForm({ onSubmit }: CreateApiKeyFormProps) {
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<ApiKeyCreateValues>({
    resolver: zodResolver(apiKeyCreateSchema()),
    defaultValues: { name: "", expiresIn: "90" },
  });

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else reset();
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Create an API key">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not create the key">
            {errors.root.server.message}
          </Alert>
        )}
        <Group align="flex-start" gap="md" grow preventGrowOverflow={false} wrap="wrap">
          <TextInput
            label="Name"
            description="What the key is for, e.g. “deploy script”."
            required
            {...register("name")}
            error={errors.name?.message}
            miw={200}
          />
          <NativeSelect
            label="Expires"
            description="A key stops working when it expires."
            data={API_KEY_EXPIRY_CHOICES.map((value) => ({ value, label: EXPIRY_LABELS[value] }))}
            {...register("expiresIn")}
            error={errors.expiresIn?.message}
            miw={160}
          />
        </Group>
        <Group justify="flex-end">
          <Button type="submit" loading={isSubmitting}>
            Create key
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
