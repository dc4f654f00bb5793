import { explainRedirectError } from "@kassa/contracts";
import { Alert, Button, Center, Loader, Stack, Text } from "@mantine/core";
import { IconCircleCheck } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { Link, useSearch } from "@tanstack/react-router";
import { sessionQuery } from "../../lib/queries";
import { AuthPage } from "./layout";

/** Where the mailed verification link lands (`?error=` when the link did not work). */
export function VerifiedPage() {
  const search = useSearch({ strict: false });
  const session = useQuery({ ...sessionQuery, staleTime: 0 });

  if (search.error) {
    return (
      <AuthPage title="Your e-mail address is not verified">
        <Stack gap="md">
          <Alert color="red" role="alert" title="The link did not work">
            {explainRedirectError(search.error)}
            <Text size="xs" c="dimmed" mt={4}>
              Error code: {search.error}
            </Text>
          </Alert>
          <Button component={Link} to="/verify-email">
            Send a new link
          </Button>
        </Stack>
      </AuthPage>
    );
  }

  return (
    <AuthPage title="Your e-mail address is verified">
      <Stack gap="md">
        <Alert color="green" icon={<IconCircleCheck size={20} />} role="status">
          Thank you: your account is ready.
        </Alert>
        {session.isPending ? (
          <Center>
            <Loader size="sm" aria-label="Loading" />
          </Center>
        ) : session.data ? (
          <Button component={Link} to="/dashboard">
            Continue to your dashboard
          </Button>
        ) : (
          <Button component={Link} to="/sign-in">
            Sign in
          </Button>
        )}
      </Stack>
    </AuthPage>
  );
}
