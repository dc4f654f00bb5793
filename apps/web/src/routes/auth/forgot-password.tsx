import { zodResolver } from "@hookform/resolvers/zod";
import { type ForgotPasswordValues, forgotPasswordSchema } from "@kassa/contracts";
import { Alert, Anchor, Button, Stack, TextInput } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { DevMailboxHint } from "../../components/dev-mailbox-hint";
import { CAPTCHA_MISSING, useCaptcha } from "../../features/captcha/captcha";
import { authClient, refusalOf } from "../../lib/auth-client";
import { usePublicConfig } from "../../lib/queries";
import { applyServerError } from "../../lib/server-errors";
import { AuthPage } from "./layout";

export function ForgotPasswordPage() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const config = usePublicConfig();
  const captcha = useCaptcha(config.data?.captcha);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ForgotPasswordValues>({
    resolver: zodResolver(forgotPasswordSchema),
    defaultValues: { email: "" },
  });

  const submit = handleSubmit(async ({ email }) => {
    if (!captcha.ready) {
      applyServerError(CAPTCHA_MISSING, setError, {});
      return;
    }
    const headers = captcha.headers;
    captcha.reset();
    const refusal = await refusalOf(() =>
      authClient.requestPasswordReset({
        email,
        redirectTo: "/reset-password",
        ...(headers ? { fetchOptions: { headers } } : {}),
      }),
    );
    if (refusal) applyServerError(refusal, setError, { INVALID_EMAIL: "email" });
    else setSentTo(email);
  });

  return (
    <AuthPage
      title="Forgot your password?"
      subtitle="We will mail you a link to choose a new one."
      footer={
        <Anchor component={Link} to="/sign-in">
          Back to sign in
        </Anchor>
      }
    >
      {sentTo ? (
        <Stack gap="md">
          <Alert color="green" role="status" title="Check your inbox">
            If an account uses {sentTo}, a link to reset its password is on its way. It works once.
          </Alert>
          <DevMailboxHint />
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Reset your password">
          <Stack gap="md">
            {errors.root?.server && (
              <Alert color="red" role="alert">
                {errors.root.server.message}
              </Alert>
            )}
            <TextInput
              label="E-mail"
              type="email"
              autoComplete="email"
              required
              {...register("email")}
              error={errors.email?.message}
            />
            {captcha.widget}
            <Button type="submit" loading={isSubmitting}>
              Send the link
            </Button>
          </Stack>
        </form>
      )}
    </AuthPage>
  );
}
