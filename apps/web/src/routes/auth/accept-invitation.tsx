import { Alert, Button, Center, Group, Loader, Stack, Table, Text } from "@mantine/core";
import { IconCircleCheck, IconMailOpened } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { ButtonLink } from "../../components/links";
import { roleNames } from "../../features/organization/roles";
import { authClient } from "../../lib/auth-client";
import {
  attempt,
  call,
  formatDateTime,
  type InvitationDetails,
  organizationKeys,
} from "../../lib/organization";
import { sessionQuery } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";
import { AuthPage } from "./layout";

/**
 * `/accept-invitation/{id}?email=`: where the mailed invitation lands. Signed in as the
 * invited address: the organization, who invited and the role, with accept and reject.
 * Signed out: sign in, or create an account with the invited address; either way the person
 * comes back here (the verification link of a new account leads here too).
 */
export function AcceptInvitationPage() {
  const { invitationId = "" } = useParams({ strict: false });
  const search = useSearch({ strict: false });
  const session = useQuery(sessionQuery);
  const here = `/accept-invitation/${invitationId}${search.email ? `?email=${encodeURIComponent(search.email)}` : ""}`;

  if (session.isPending) {
    return (
      <AuthPage title="Invitation">
        <Center>
          <Loader aria-label="Loading" />
        </Center>
      </AuthPage>
    );
  }
  if (!session.data) {
    return (
      <AuthPage
        title="You are invited to an organization on Kassa"
        subtitle={search.email ? `The invitation is for ${search.email}.` : undefined}
      >
        <Stack gap="md">
          <Text size="sm">
            Sign in to see the invitation and accept it. New to Kassa? Create an account with the invited
            address: once it is verified you come back here.
          </Text>
          <ButtonLink to="/sign-in" search={{ email: search.email, redirect: here }}>
            Sign in
          </ButtonLink>
          <ButtonLink variant="default" to="/sign-up" search={{ email: search.email, redirect: here }}>
            Create an account
          </ButtonLink>
        </Stack>
      </AuthPage>
    );
  }
  return <SignedInInvitation invitationId={invitationId} email={session.data.user.email} here={here} />;
}

function SignedInInvitation({
  invitationId,
  email,
  here,
}: {
  invitationId: string;
  email: string;
  here: string;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [outcome, setOutcome] = useState<"rejected" | null>(null);
  const [pending, setPending] = useState<"accept" | "reject" | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const invitation = useQuery({
    queryKey: ["invitation", invitationId],
    queryFn: () => call<InvitationDetails>("/organization/get-invitation", { query: { id: invitationId } }),
    retry: false,
  });

  const switchAccount = async () => {
    await authClient.signOut();
    queryClient.setQueryData(sessionQuery.queryKey, null);
    await navigate({ to: "/sign-in", search: { redirect: here } });
  };

  if (outcome === "rejected") {
    return (
      <AuthPage title="Invitation declined">
        <Stack gap="md">
          <Text size="sm">You declined the invitation. Nothing changed in your account.</Text>
          <Button component={Link} to="/dashboard">
            Go to your dashboard
          </Button>
        </Stack>
      </AuthPage>
    );
  }
  if (invitation.isPending) {
    return (
      <AuthPage title="Invitation">
        <Center>
          <Loader aria-label="Loading the invitation" />
        </Center>
      </AuthPage>
    );
  }
  if (invitation.isError || !invitation.data) {
    return (
      <AuthPage title="This invitation cannot be used">
        <Stack gap="md">
          <Alert color="red" role="alert" title="The server refused">
            {invitation.error?.message ?? "Invitation not found"}
          </Alert>
          <Text size="sm">
            You are signed in as {email}. An invitation works only for the address it was sent to, and only
            while it is pending: it may have expired, been canceled or been answered already.
          </Text>
          <Group grow>
            <Button variant="default" onClick={() => void switchAccount()}>
              Sign in as someone else
            </Button>
            <Button component={Link} to="/dashboard">
              Go to your dashboard
            </Button>
          </Group>
        </Stack>
      </AuthPage>
    );
  }

  const inv = invitation.data;
  const answer = async (kind: "accept" | "reject") => {
    setPending(kind);
    setRefusal(null);
    const error = await attempt(() =>
      call(kind === "accept" ? "/organization/accept-invitation" : "/organization/reject-invitation", {
        body: { invitationId },
      }),
    );
    setPending(null);
    if (error) {
      setRefusal(serverErrorMessage(error));
      return;
    }
    if (kind === "reject") {
      setOutcome("rejected");
      return;
    }
    await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
    await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
    await navigate({ to: "/dashboard/$slug", params: { slug: inv.organizationSlug } });
  };

  return (
    <AuthPage title={`Join ${inv.organizationName}`} subtitle={`${inv.inviterEmail} invited you to Kassa.`}>
      <Stack gap="md">
        {refusal && (
          <Alert color="red" role="alert" title="The server refused">
            {refusal}
          </Alert>
        )}
        <Group gap="sm" wrap="nowrap">
          <IconMailOpened size={28} aria-hidden color="var(--mantine-color-indigo-6)" />
          <Text size="sm">Accept to join the organization with the role below.</Text>
        </Group>
        <Table variant="vertical" withTableBorder aria-label="The invitation">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={120}>Organization</Table.Th>
              <Table.Td>{inv.organizationName}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Invited by</Table.Th>
              <Table.Td>{inv.inviterEmail}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Role</Table.Th>
              <Table.Td>{roleNames(inv.role)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>For</Table.Th>
              <Table.Td>{inv.email}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Expires</Table.Th>
              <Table.Td>{formatDateTime(inv.expiresAt)}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <Stack gap="xs">
          <Button
            leftSection={<IconCircleCheck size={18} />}
            loading={pending === "accept"}
            disabled={pending !== null}
            onClick={() => void answer("accept")}
          >
            Accept invitation
          </Button>
          <Button
            variant="default"
            loading={pending === "reject"}
            disabled={pending !== null}
            onClick={() => void answer("reject")}
          >
            Decline
          </Button>
        </Stack>
      </Stack>
    </AuthPage>
  );
}
