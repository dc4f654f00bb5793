import { Badge, Button, Group, Paper, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconDeviceDesktop, IconDeviceMobile } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { type ActiveSession, sessionsQuery } from "../../features/account/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { describeDevice, isMobileDevice } from "../../lib/device";
import { formatDateTime } from "../../lib/format";
import { sessionQuery } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";

export function SessionsPage() {
  const sessions = useQuery(sessionsQuery);
  const current = useQuery(sessionQuery);
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState<ActiveSession | null>(null);
  const [revokingOthers, setRevokingOthers] = useState(false);
  const currentId = current.data?.session.id;
  const refresh = () => queryClient.invalidateQueries({ queryKey: sessionsQuery.queryKey });

  return (
    <>
      <PageHeader
        title="Sessions"
        description="The devices signed in to your account. Sign out any you do not recognise."
        actions={
          (sessions.data?.length ?? 0) > 1 && (
            <Button variant="light" color="red" onClick={() => setRevokingOthers(true)}>
              Sign out other devices
            </Button>
          )
        }
      />
      <SettingsSection title="Active sessions">
        <QueryState query={sessions} label="your sessions">
          {(list) => (
            <Stack gap="sm" component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }}>
              {[...list]
                .sort((a, b) => (a.id === currentId ? -1 : b.id === currentId ? 1 : 0))
                .map((s) => {
                  const isCurrent = s.id === currentId;
                  const Icon = isMobileDevice(s.userAgent) ? IconDeviceMobile : IconDeviceDesktop;
                  const device = describeDevice(s.userAgent);
                  return (
                    <Paper key={s.id} component="li" withBorder radius="md" p="sm" aria-label={device}>
                      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
                        <Group gap="sm" wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
                          <Icon size={24} aria-hidden style={{ flexShrink: 0 }} />
                          <Stack gap={2}>
                            <Group gap="xs">
                              <Text size="sm" fw={500}>
                                {device}
                              </Text>
                              {isCurrent && (
                                <Badge color="green" variant="light">
                                  This device
                                </Badge>
                              )}
                            </Group>
                            <Text size="xs" c="dimmed">
                              {s.ipAddress ? `IP ${s.ipAddress} · ` : ""}Last seen{" "}
                              {formatDateTime(s.updatedAt)} · Signed in {formatDateTime(s.createdAt)}
                            </Text>
                          </Stack>
                        </Group>
                        {!isCurrent && (
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => setRevoking(s)}
                            aria-label={`Sign out ${device}`}
                            style={{ flexShrink: 0 }}
                          >
                            Sign out
                          </Button>
                        )}
                      </Group>
                    </Paper>
                  );
                })}
            </Stack>
          )}
        </QueryState>
      </SettingsSection>
      <ConfirmDialog
        opened={revoking !== null}
        onClose={() => setRevoking(null)}
        title="Sign out this device?"
        confirmLabel="Sign out"
        onConfirm={async () => {
          if (!revoking) return null;
          const refusal = await refusalOf(() => authClient.revokeSession({ token: revoking.token }));
          if (refusal) return serverErrorMessage(refusal);
          await refresh();
          notifications.show({ color: "green", message: "The device is signed out." });
          return null;
        }}
      >
        {revoking ? `${describeDevice(revoking.userAgent)} will have to sign in again.` : ""}
      </ConfirmDialog>
      <ConfirmDialog
        opened={revokingOthers}
        onClose={() => setRevokingOthers(false)}
        title="Sign out every other device?"
        confirmLabel="Sign out others"
        onConfirm={async () => {
          const refusal = await refusalOf(() => authClient.revokeOtherSessions());
          if (refusal) return serverErrorMessage(refusal);
          await refresh();
          notifications.show({ color: "green", message: "Your other devices are signed out." });
          return null;
        }}
      >
        Every session but this one ends. You stay signed in here.
      </ConfirmDialog>
    </>
  );
}
