import { explainRedirectError } from "@kassa/contracts";
import { Alert, Button, Code, Stack, Text } from "@mantine/core";
import { Link, useSearch } from "@tanstack/react-router";
import { AuthPage } from "./layout";

/** `/error?error=<code>`: what went wrong, in words, with the code for support. */
export function ErrorPage() {
  const search = useSearch({ strict: false });
  const code = (search.error ?? "unknown_error").slice(0, 200);
  return (
    <AuthPage title="Something went wrong">
      <Stack gap="md">
        <Alert color="red" role="alert">
          {explainRedirectError(code)}
        </Alert>
        <Text size="sm" c="dimmed">
          Error code: <Code>{code}</Code>
        </Text>
        <Button component={Link} to="/">
          Back to Kassa
        </Button>
      </Stack>
    </AuthPage>
  );
}
