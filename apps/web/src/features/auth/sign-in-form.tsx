import { zodResolver } from "@hookform/resolvers/zod";
import { type SignInValues, signInSchema } from "@kassa/contracts";
import { Alert, Button, PasswordInput, Stack, TextInput } from "@mantine/core";
import type { ReactNode } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import { applyServerError } from "../../lib/server-errors";

/** Which field each of the server's sign-in refusals concerns. */
const FIELD_BY_CODE = {
  INVALID_EMAIL: "identifier",
  INVALID_EMAIL_OR_PASSWORD: "password",
  INVALID_USERNAME_OR_PASSWORD: "password",
  INVALID_PASSWORD: "password",
  INVALID_USERNAME: "identifier",
  USERNAME_TOO_SHORT: "identifier",
  USERNAME_TOO_LONG: "identifier",
} as const;

export interface SignInFormProps {
  /** Sends the sign-in; resolves with the server's refusal, or null when it succeeded. */
  onSubmit: (values: SignInValues) => Promise<ServerError | null>;
  /** Shown under the password field (e.g. the forgot-password link). */
  passwordHint?: ReactNode;
  defaultIdentifier?: string;
  /** Shown above the button (the captcha widget when the server asks for one). */
  extra?: ReactNode;
}

export function SignInForm({ onSubmit, passwordHint, defaultIdentifier = "", extra }: SignInFormProps) {
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<SignInValues>({
    resolver: zodResolver(signInSchema),
    defaultValues: { identifier: defaultIdentifier, password: "" },
  });

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Sign in">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not sign in">
            {errors.root.server.message}
          </Alert>
        )}
        <TextInput
          label="E-mail or username"
          autoComplete="username"
          required
          {...register("identifier")}
          error={errors.identifier?.message}
        />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          required
          {...register("password")}
          error={errors.password?.message}
          // Mantine's PasswordInput marks its input data-invalid only; screen readers need aria-invalid.
          aria-invalid={errors.password ? true : undefined}
        />
        {passwordHint}
        {extra}
        <Button type="submit" loading={isSubmitting} fullWidth>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
