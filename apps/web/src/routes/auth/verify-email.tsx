import { zodResolver } from "@hookform/resolvers/zod";
import { type ResendVerificationValues, resendVerificationSchema } from "@kassa/contracts";
import { Alert, Anchor, Button, Stack, Text, TextInput } from "@mantine/core";
import { IconMailCheck } from "@tabler/icons-react";
import { Link, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { DevMailboxHint } from "../../components/dev-mailbox-hint";
import { authClient, refusalOf } from "../../lib/auth-client";
import { applyServerError } from "../../lib/server-errors";
import { AuthPage } from "./layout";

/** After sign-up, or a sign-in refused because the address is not verified yet. */
export function VerifyEmailPage() {
  const search = useSearch({ strict: false });
  const [resentTo, setResentTo] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ResendVerificationValues>({
    resolver: zodResolver(resendVerificationSchema),
    defaultValues: { email: search.email ?? "" },
  });

  const resend = handleSubmit(async ({ email }) => {
    setResentTo(null);
    const refusal = await refusalOf(() =>
      authClient.sendVerificationEmail({ email, callbackURL: "/verified" }),
    );
    if (refusal) applyServerError(refusal, setError, { INVALID_EMAIL: "email" });
    else setResentTo(email);
  });

  const intro =
    search.reason === "sign-in"
      ? "Your e-mail address is not verified yet. We have sent you a new link: open it to finish signing in."
      : "We have sent you a link. Open it to verify your e-mail address, then you are signed in.";

  return (
    <AuthPage
      title="Check your inbox"
      footer={
        <Anchor component={Link} to="/sign-in">
          Back to sign in
        </Anchor>
      }
    >
      <Stack gap="md">
        <Alert color="indigo" icon={<IconMailCheck size={20} />} title="Verify your e-mail address">
          {intro}
          {search.email && (
            <Text size="sm" mt={4}>
              Sent to <strong>{search.email}</strong>.
            </Text>
          )}
        </Alert>
        <DevMailboxHint />
        <form onSubmit={resend} noValidate aria-label="Send the link again">
          <Stack gap="sm">
            {errors.root?.server && (
              <Alert color="red" role="alert">
                {errors.root.server.message}
              </Alert>
            )}
            {resentTo && (
              <Alert color="green" role="status">
                A new link is on its way to {resentTo}.
              </Alert>
            )}
            <TextInput
              label="E-mail"
              type="email"
              autoComplete="email"
              {...register("email")}
              error={errors.email?.message}
            />
            <Button type="submit" variant="light" loading={isSubmitting}>
              Send the link again
            </Button>
          </Stack>
        </form>
      </Stack>
    </AuthPage>
  );
}
