import { zodResolver } from "@hookform/resolvers/zod";
import { type LengthRules, type ProfileValues, profileSchema } from "@kassa/contracts";
import { Alert, Avatar, Button, Group, Stack, TextInput } from "@mantine/core";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import "../../lib/dashboard-messages";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  USERNAME_TOO_SHORT: "username",
  USERNAME_TOO_LONG: "username",
  INVALID_USERNAME: "username",
  USERNAME_IS_ALREADY_TAKEN: "username",
  INVALID_DISPLAY_USERNAME: "displayUsername",
} as const;

export interface ProfileFormProps {
  rules: LengthRules;
  defaults: ProfileValues;
  /** Saves the profile; resolves with the server's refusal, or null when it succeeded. */
  onSubmit: (values: ProfileValues) => Promise<ServerError | null>;
}

export function ProfileForm({ rules, defaults, onSubmit }: ProfileFormProps) {
  const schema = useMemo(() => profileSchema(rules), [rules]);
  const [saved, setSaved] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    watch,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<ProfileValues>({ resolver: zodResolver(schema), defaultValues: defaults });

  const submit = handleSubmit(async (values) => {
    setSaved(false);
    if (defaults.username && !values.username) {
      // The server keeps a username once set: say so rather than pretend it was removed.
      setError("username", { type: "validate", message: "A username can be changed but not removed." });
      return;
    }
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else {
      reset(values);
      setSaved(true);
    }
  });
  const image = watch("image");
  const name = watch("name");

  return (
    <form onSubmit={submit} noValidate aria-label="Profile">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not save your profile">
            {errors.root.server.message}
          </Alert>
        )}
        {saved && !isDirty && (
          <Alert color="green" role="status">
            Your profile is saved.
          </Alert>
        )}
        <Group align="flex-end" gap="md" wrap="nowrap">
          <Avatar src={image || null} name={name} color="initials" size={56} alt="" />
          <TextInput
            style={{ flex: 1 }}
            label="Image URL"
            description="An address starting with https://; leave empty for your initials."
            type="url"
            autoComplete="photo"
            {...register("image")}
            error={errors.image?.message}
          />
        </Group>
        <TextInput
          label="Name"
          autoComplete="name"
          required
          {...register("name")}
          error={errors.name?.message}
        />
        <TextInput
          label="Username"
          description={`${rules.username.min} to ${rules.username.max} letters, digits, underscores or dots. Stored in lower case; you can sign in with it.`}
          autoComplete="username"
          {...register("username")}
          error={errors.username?.message}
        />
        <TextInput
          label="Display username"
          description="How your username is shown, e.g. with capitals. Empty: the username itself."
          {...register("displayUsername")}
          error={errors.displayUsername?.message}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={isSubmitting}>
            Save profile
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
