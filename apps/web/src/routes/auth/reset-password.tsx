import { zodResolver } from "@hookform/resolvers/zod";
import {
  explainRedirectError,
  lengthRules,
  type ResetPasswordValues,
  resetPasswordSchema,
} from "@kassa/contracts";
import { Alert, Anchor, Button, PasswordInput, Stack } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useMemo } from "react";
import { useForm } from "react-hook-form";
import { authClient, refusalOf } from "../../lib/auth-client";
import { usePublicConfig } from "../../lib/queries";
import { applyServerError } from "../../lib/server-errors";
import { AuthPage } from "./layout";

/** Where the mailed reset link lands: `?token=` (or `?error=` when the link did not work). */
export function ResetPasswordPage() {
  const search = useSearch({ strict: false });
  const navigate = useNavigate();
  const config = usePublicConfig();
  const rules = useMemo(() => lengthRules(config.data), [config.data]);
  const schema = useMemo(() => resetPasswordSchema(rules), [rules]);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ResetPasswordValues>({
    resolver: zodResolver(schema),
    defaultValues: { password: "", confirm: "" },
  });

  const token = search.token;
  if (search.error || !token) {
    return (
      <AuthPage title="Reset your password">
        <Stack gap="md">
          <Alert color="red" role="alert" title="The link did not work">
            {search.error
              ? explainRedirectError(search.error)
              : "Open the link from the mail we sent you; this address has no reset token."}
          </Alert>
          <Button component={Link} to="/forgot-password">
            Ask for a new link
          </Button>
        </Stack>
      </AuthPage>
    );
  }

  const submit = handleSubmit(async ({ password }) => {
    const refusal = await refusalOf(() => authClient.resetPassword({ newPassword: password, token }));
    if (refusal) {
      applyServerError(refusal, setError, { PASSWORD_TOO_SHORT: "password", PASSWORD_TOO_LONG: "password" });
      return;
    }
    notifications.show({
      color: "green",
      title: "Password changed",
      message: "Sign in with your new password.",
    });
    await navigate({ to: "/sign-in" });
  });

  return (
    <AuthPage
      title="Choose a new password"
      footer={
        <Anchor component={Link} to="/sign-in">
          Back to sign in
        </Anchor>
      }
    >
      <form onSubmit={submit} noValidate aria-label="Choose a new password">
        <Stack gap="md">
          {errors.root?.server && (
            <Alert color="red" role="alert" title="Your password was not changed">
              {errors.root.server.message}{" "}
              <Anchor component={Link} to="/forgot-password">
                Ask for a new link
              </Anchor>
            </Alert>
          )}
          <PasswordInput
            label="New password"
            description={`${rules.password.min} to ${rules.password.max} characters.`}
            autoComplete="new-password"
            required
            {...register("password")}
            error={errors.password?.message}
            aria-invalid={errors.password ? true : undefined}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            {...register("confirm")}
            error={errors.confirm?.message}
            aria-invalid={errors.confirm ? true : undefined}
          />
          <Button type="submit" loading={isSubmitting}>
            Change password
          </Button>
        </Stack>
      </form>
    </AuthPage>
  );
}
