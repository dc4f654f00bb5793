import { lengthRules } from "@kassa/contracts";
import { Anchor, Text } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useMemo } from "react";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { ChangePasswordForm } from "../../features/account/change-password-form";
import { linkedAccountsQuery, sessionsQuery } from "../../features/account/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { sessionQuery, usePublicConfig } from "../../lib/queries";

export function PasswordPage() {
  const config = usePublicConfig();
  const rules = useMemo(() => lengthRules(config.data), [config.data]);
  const accounts = useQuery(linkedAccountsQuery);
  const queryClient = useQueryClient();

  return (
    <>
      <PageHeader title="Password" description="Change the password you sign in with." />
      <QueryState query={accounts} label="your sign-in methods">
        {(list) =>
          list.some((a) => a.providerId === "credential") ? (
            <SettingsSection title="Change password">
              <ChangePasswordForm
                rules={rules}
                onSubmit={async ({ currentPassword, newPassword, revokeOtherSessions }) => {
                  const refusal = await refusalOf(() =>
                    authClient.changePassword({ currentPassword, newPassword, revokeOtherSessions }),
                  );
                  if (!refusal) {
                    // Signing out the other devices replaces this session too (a new token).
                    await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
                    await queryClient.invalidateQueries({ queryKey: sessionsQuery.queryKey });
                  }
                  return refusal;
                }}
              />
            </SettingsSection>
          ) : (
            <SettingsSection title="No password yet">
              <Text size="sm">
                You sign in with a linked account and have no password. To add one, use{" "}
                <Anchor component={Link} to="/forgot-password">
                  forgot password
                </Anchor>{" "}
                with your e-mail address: the mailed link lets you choose one.
              </Text>
            </SettingsSection>
          )
        }
      </QueryState>
    </>
  );
}
