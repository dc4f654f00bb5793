import { Alert, Anchor, Button, Stack } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useEffect } from "react";
import { sessionQuery } from "../../lib/queries";
import { AuthPage } from "./layout";

/** Where a deleted account's person lands: signed out, and told so. */
export function AccountDeletedPage() {
  const queryClient = useQueryClient();
  useEffect(() => {
    // The server has ended every session of the account: forget the cached one.
    queryClient.setQueryData(sessionQuery.queryKey, null);
  }, [queryClient]);
  return (
    <AuthPage
      title="Your account is deleted"
      footer={
        <Anchor component={Link} to="/sign-in">
          Back to sign in
        </Anchor>
      }
    >
      <Stack gap="md">
        <Alert color="green" role="status">
          Your account and everything that belonged to it are gone, and you are signed out on every device.
        </Alert>
        <Button component={Link} to="/sign-up" variant="default">
          Create a new account
        </Button>
      </Stack>
    </AuthPage>
  );
}
