import { Alert, Anchor, Button, Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { authenticateCode, type PortalOrganization, requestCode, V1Error } from "./api";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Sign-in by e-mailed code: the customer gives their e-mail, the server mails a 6-character
 * code (and says nothing about whether the address is known), the customer types it.
 */
export function SignIn({
  organization,
  initialEmail,
  onSignedIn,
}: {
  organization: PortalOrganization;
  initialEmail?: string | undefined;
  onSignedIn: (token: string) => void;
}) {
  const [step, setStep] = useState<"email" | "code">(initialEmail ? "code" : "email");
  const [email, setEmail] = useState(initialEmail ?? "");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const sendCode = async () => {
    setError(null);
    if (!EMAIL.test(email.trim())) {
      setError("Enter the e-mail address you bought with.");
      return;
    }
    setPending(true);
    try {
      await requestCode({ email: email.trim(), organization_id: organization.id });
      setStep("code");
    } catch (e) {
      setError(e instanceof Error ? e.message : "The code could not be sent.");
    } finally {
      setPending(false);
    }
  };

  const verify = async () => {
    setError(null);
    const typed = code.replace(/\s/g, "").toUpperCase();
    if (!/^[A-Z0-9]{6}$/.test(typed)) {
      setError("The code has 6 letters and digits.");
      return;
    }
    setPending(true);
    try {
      const { token } = await authenticateCode(typed);
      onSignedIn(token);
    } catch (e) {
      setError(
        e instanceof V1Error && e.status === 401
          ? "This code is wrong or has expired. Check the latest mail, or ask for a new code."
          : e instanceof Error
            ? e.message
            : "The code could not be checked.",
      );
    } finally {
      setPending(false);
    }
  };

  return (
    <Paper withBorder radius="md" p="lg" maw={420} w="100%" mx="auto">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={1} size="h3">
            Sign in to {organization.name}
          </Title>
          <Text size="sm" c="dimmed">
            {step === "email"
              ? "We will e-mail you a code to see your orders and subscriptions."
              : `If ${email || "this address"} has bought from ${organization.name}, a code is on its way. It works for 30 minutes.`}
          </Text>
        </Stack>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void (step === "email" ? sendCode() : verify());
          }}
        >
          <Stack gap="sm">
            {step === "email" ? (
              <TextInput
                label="E-mail"
                name="email"
                type="email"
                autoComplete="email"
                required
                value={email}
                onChange={(e) => setEmail(e.currentTarget.value)}
                disabled={pending}
                data-autofocus
              />
            ) : (
              <TextInput
                label="Code"
                name="code"
                autoComplete="one-time-code"
                placeholder="ABC123"
                maxLength={8}
                styles={{
                  input: { letterSpacing: "0.3em", fontFamily: "monospace", textTransform: "uppercase" },
                }}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                disabled={pending}
              />
            )}
            {error && (
              <Alert color="red" variant="light" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={pending} fullWidth>
              {step === "email" ? "Send me a code" : "Sign in"}
            </Button>
            {step === "code" && (
              <Text size="sm" ta="center">
                <Anchor
                  component="button"
                  type="button"
                  onClick={() => {
                    setStep("email");
                    setCode("");
                    setError(null);
                  }}
                >
                  Use another e-mail or send a new code
                </Anchor>
              </Text>
            )}
          </Stack>
        </form>
      </Stack>
    </Paper>
  );
}
