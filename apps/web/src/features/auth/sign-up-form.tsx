import { zodResolver } from "@hookform/resolvers/zod";
import { type LengthRules, type SignUpValues, signUpSchema } from "@kassa/contracts";
import { Alert, Button, PasswordInput, Stack, TextInput } from "@mantine/core";
import { type ReactNode, useMemo } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import { applyServerError } from "../../lib/server-errors";

/** Which field each of the server's sign-up refusals concerns. */
const FIELD_BY_CODE = {
  USER_ALREADY_EXISTS: "email",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "email",
  INVALID_EMAIL: "email",
  PASSWORD_TOO_SHORT: "password",
  PASSWORD_TOO_LONG: "password",
  USERNAME_TOO_SHORT: "username",
  USERNAME_TOO_LONG: "username",
  INVALID_USERNAME: "username",
  USERNAME_IS_ALREADY_TAKEN: "username",
} as const;

export interface SignUpFormProps {
  rules: LengthRules;
  /** Sends the sign-up; resolves with the server's refusal, or null when it succeeded. */
  onSubmit: (values: SignUpValues) => Promise<ServerError | null>;
  /** Prefilled address (e.g. the invited one). */
  defaultEmail?: string;
  /** Shown above the button (the captcha widget when the server asks for one). */
  extra?: ReactNode;
}

export function SignUpForm({ rules, onSubmit, defaultEmail = "", extra }: SignUpFormProps) {
  const schema = useMemo(() => signUpSchema(rules), [rules]);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<SignUpValues>({
    resolver: zodResolver(schema),
    defaultValues: { name: "", email: defaultEmail, username: "", password: "" },
  });

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Sign up">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not sign up">
            {errors.root.server.message}
          </Alert>
        )}
        <TextInput
          label="Name"
          autoComplete="name"
          required
          {...register("name")}
          error={errors.name?.message}
        />
        <TextInput
          label="E-mail"
          type="email"
          autoComplete="email"
          required
          {...register("email")}
          error={errors.email?.message}
        />
        <TextInput
          label="Username"
          description={`Optional. ${rules.username.min} to ${rules.username.max} letters, digits, underscores or dots.`}
          autoComplete="username"
          {...register("username")}
          error={errors.username?.message}
        />
        <PasswordInput
          label="Password"
          description={`${rules.password.min} to ${rules.password.max} characters.`}
          autoComplete="new-password"
          required
          {...register("password")}
          error={errors.password?.message}
          // Mantine's PasswordInput marks its input data-invalid only; screen readers need aria-invalid.
          aria-invalid={errors.password ? true : undefined}
        />
        {extra}
        <Button type="submit" loading={isSubmitting} fullWidth>
          Create account
        </Button>
      </Stack>
    </form>
  );
}
