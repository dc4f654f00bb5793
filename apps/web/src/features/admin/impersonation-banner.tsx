import { Alert, Button, Group, Text } from "@mantine/core";
import { IconSpy } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { authClient, refusalOf } from "../../lib/auth-client";
import { sessionQuery } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";

/** Shown on every signed-in page while an admin acts as another user, with the way back. */
export function ImpersonationBanner() {
  const session = useQuery(sessionQuery);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const impersonatedBy = (session.data?.session as { impersonatedBy?: string | null } | undefined)
    ?.impersonatedBy;
  if (!session.data || !impersonatedBy) return null;

  const stop = async () => {
    setPending(true);
    setError(null);
    const refusal = await refusalOf(() => authClient.admin.stopImpersonating());
    setPending(false);
    if (refusal) {
      setError(serverErrorMessage(refusal));
      return;
    }
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== "public-config" });
    await queryClient.fetchQuery(sessionQuery);
    await navigate({ to: "/admin" });
  };

  return (
    <Alert color="orange" variant="filled" role="status" mb="md" icon={<IconSpy size={20} aria-hidden />}>
      <Group justify="space-between" gap="sm">
        <Text size="sm" fw={500}>
          You are acting as {session.data.user.name} ({session.data.user.email}).
          {error && ` ${error}`}
        </Text>
        <Button size="xs" variant="white" color="orange" loading={pending} onClick={() => void stop()}>
          Stop impersonating
        </Button>
      </Group>
    </Alert>
  );
}
