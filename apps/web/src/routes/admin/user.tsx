import { banExpiresInSeconds, lengthRules } from "@kassa/contracts";
import { Alert, Anchor, Badge, Button, Group, Paper, Stack, Text } from "@mantine/core";
import { IconArrowLeft, IconSpy } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { BanUserForm, SetPasswordForm, SetRoleForm } from "../../features/admin/admin-forms";
import { adminUserQuery, adminUserSessionsQuery } from "../../features/admin/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { describeDevice } from "../../lib/device";
import { formatDateTime } from "../../lib/format";
import { sessionQuery, usePublicConfig } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";

export function AdminUserPage() {
  const userId = useParams({ strict: false }).userId ?? "";
  const user = useQuery(adminUserQuery(userId));
  const sessions = useQuery(adminUserSessionsQuery(userId));
  const me = useQuery(sessionQuery);
  const config = usePublicConfig();
  const rules = useMemo(() => lengthRules(config.data), [config.data]);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState<"unban" | "impersonate" | "revoke-all" | { token: string } | null>(
    null,
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["admin"] });
  const isMe = me.data?.user.id === userId;

  return (
    <>
      <Anchor component={Link} to="/admin" size="sm">
        <Group gap={4}>
          <IconArrowLeft size={14} aria-hidden /> All users
        </Group>
      </Anchor>
      <QueryState query={user} label="the user">
        {(u) => (
          <>
            <PageHeader
              title={u.name || u.email}
              description={
                <Group gap="xs" component="span">
                  <span>{u.email}</span>
                  <Badge variant="light" color={u.role === "admin" ? "indigo" : "gray"}>
                    {u.role ?? "user"}
                  </Badge>
                  {u.banned && <Badge color="red">banned</Badge>}
                  <span>Joined {formatDateTime(u.createdAt)}</span>
                </Group>
              }
              actions={
                !isMe && (
                  <Button
                    variant="default"
                    leftSection={<IconSpy size={18} aria-hidden />}
                    onClick={() => setConfirm("impersonate")}
                  >
                    Impersonate
                  </Button>
                )
              }
            />
            <SettingsSection title="Role" description="Admins can see and manage every user on this server.">
              <SetRoleForm
                role={u.role ?? "user"}
                onSubmit={async ({ role }) => {
                  const refusal = await refusalOf(() => authClient.admin.setRole({ userId, role }));
                  if (!refusal) await refresh();
                  return refusal;
                }}
              />
            </SettingsSection>
            <SettingsSection
              title={u.banned ? "Banned" : "Ban"}
              danger
              description={
                u.banned
                  ? undefined
                  : "A banned user is signed out everywhere and cannot sign in until the ban ends or is lifted."
              }
            >
              {u.banned ? (
                <Stack gap="sm">
                  <Text size="sm">
                    Reason: {u.banReason || "none given"}.{" "}
                    {u.banExpires ? `Until ${formatDateTime(u.banExpires)}.` : "No end."}
                  </Text>
                  <Group justify="flex-end">
                    <Button variant="default" onClick={() => setConfirm("unban")}>
                      Unban
                    </Button>
                  </Group>
                </Stack>
              ) : (
                <BanUserForm
                  onSubmit={async ({ reason, expiresIn }) => {
                    const seconds = banExpiresInSeconds(expiresIn);
                    const refusal = await refusalOf(() =>
                      authClient.admin.banUser({
                        userId,
                        ...(reason ? { banReason: reason } : {}),
                        ...(seconds ? { banExpiresIn: seconds } : {}),
                      }),
                    );
                    if (!refusal) await refresh();
                    return refusal;
                  }}
                />
              )}
            </SettingsSection>
            <SettingsSection
              title="Password"
              description="Set a new password for this user. Tell them through a safe channel."
            >
              <SetPasswordForm
                rules={rules}
                onSubmit={({ newPassword }) =>
                  refusalOf(() => authClient.admin.setUserPassword({ userId, newPassword }))
                }
              />
            </SettingsSection>
          </>
        )}
      </QueryState>
      <SettingsSection title="Sessions">
        <QueryState query={sessions} label="the user's sessions">
          {({ sessions: list }) =>
            list.length === 0 ? (
              <Text c="dimmed" size="sm">
                Not signed in anywhere.
              </Text>
            ) : (
              <Stack gap="xs">
                {list.map((s) => (
                  <Paper key={s.id} withBorder p="sm" radius="md">
                    <Group justify="space-between" wrap="nowrap" gap="sm">
                      <Stack gap={2}>
                        <Text size="sm" fw={500}>
                          {describeDevice(s.userAgent)}
                          {s.impersonatedBy ? " (impersonation)" : ""}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {s.ipAddress ? `IP ${s.ipAddress} · ` : ""}Last seen {formatDateTime(s.updatedAt)} ·
                          Expires {formatDateTime(s.expiresAt)}
                        </Text>
                      </Stack>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => setConfirm({ token: s.token })}
                        aria-label={`Revoke the session on ${describeDevice(s.userAgent)}`}
                        style={{ flexShrink: 0 }}
                      >
                        Revoke
                      </Button>
                    </Group>
                  </Paper>
                ))}
                <Group justify="flex-end">
                  <Button variant="light" color="red" onClick={() => setConfirm("revoke-all")}>
                    Revoke all sessions
                  </Button>
                </Group>
              </Stack>
            )
          }
        </QueryState>
      </SettingsSection>
      {isMe && (
        <Alert color="gray" role="note">
          This is your own account.
        </Alert>
      )}
      <ConfirmDialog
        opened={confirm !== null}
        onClose={() => setConfirm(null)}
        title={
          confirm === "unban"
            ? "Lift the ban?"
            : confirm === "impersonate"
              ? "Act as this user?"
              : confirm === "revoke-all"
                ? "Revoke every session?"
                : "Revoke this session?"
        }
        confirmLabel={confirm === "unban" ? "Unban" : confirm === "impersonate" ? "Impersonate" : "Revoke"}
        onConfirm={async () => {
          if (confirm === null) return null;
          if (confirm === "impersonate") {
            const refusal = await refusalOf(() => authClient.admin.impersonateUser({ userId }));
            if (refusal) return serverErrorMessage(refusal);
            queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== "public-config" });
            await queryClient.fetchQuery(sessionQuery);
            await navigate({ to: "/dashboard" });
            return null;
          }
          const refusal = await refusalOf(() =>
            confirm === "unban"
              ? authClient.admin.unbanUser({ userId })
              : confirm === "revoke-all"
                ? authClient.admin.revokeUserSessions({ userId })
                : authClient.admin.revokeUserSession({ sessionToken: confirm.token }),
          );
          if (refusal) return serverErrorMessage(refusal);
          await refresh();
          return null;
        }}
      >
        {confirm === "unban"
          ? "They can sign in again at once."
          : confirm === "impersonate"
            ? "You will see Kassa as they do until you stop impersonating (a banner shows the way back). Impersonation ends by itself after an hour."
            : "They are signed out on that device and must sign in again."}
      </ConfirmDialog>
    </>
  );
}
