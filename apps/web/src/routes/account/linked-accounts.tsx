import { explainRedirectError, type PublicConfig } from "@kassa/contracts";
import { Alert, Badge, Button, Group, Stack, Text } from "@mantine/core";
import { IconBrandGithub, IconBrandGoogle, IconKey, IconMail } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { type LinkedAccount, linkedAccountsQuery } from "../../features/account/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { formatDate } from "../../lib/format";
import { usePublicConfig } from "../../lib/queries";
import { serverErrorMessage } from "../../lib/server-errors";

type Provider = PublicConfig["socialProviders"][number];
const ICONS: Record<string, typeof IconKey> = {
  credential: IconMail,
  github: IconBrandGithub,
  google: IconBrandGoogle,
};
const HERE = "/account/linked-accounts";

export function LinkedAccountsPage() {
  const accounts = useQuery(linkedAccountsQuery);
  const config = usePublicConfig();
  const search = useSearch({ strict: false });
  const queryClient = useQueryClient();
  const [unlinking, setUnlinking] = useState<LinkedAccount | null>(null);
  const [linkError, setLinkError] = useState<string | null>(null);
  const [linking, setLinking] = useState<string | null>(null);
  const providers = config.data?.socialProviders ?? [];
  const nameOf = (providerId: string) =>
    providerId === "credential"
      ? "E-mail and password"
      : (providers.find((p) => p.id === providerId)?.name ?? providerId);

  const link = async (provider: Provider) => {
    setLinking(provider.id);
    setLinkError(null);
    const options = { callbackURL: HERE, errorCallbackURL: HERE };
    // Social and generic OAuth (OIDC) providers alike are linked through /link-social.
    const res = await authClient.linkSocial({ provider: provider.id, ...options });
    if (res.error) {
      setLinking(null);
      setLinkError(serverErrorMessage(res.error));
      return;
    }
    if (res.data?.url) window.location.assign(res.data.url);
  };

  return (
    <>
      <PageHeader
        title="Linked accounts"
        description="The ways you can sign in. Link a provider to sign in with it too."
      />
      {search.error && (
        <Alert color="red" role="alert" title="The account was not linked">
          {explainRedirectError(search.error)}
        </Alert>
      )}
      <SettingsSection
        title="Sign-in methods"
        description="You cannot unlink your only way to sign in: link another first (unless this server allows it)."
      >
        <QueryState query={accounts} label="your linked accounts">
          {(list) =>
            list.length === 0 ? (
              <Text c="dimmed" size="sm">
                No linked accounts.
              </Text>
            ) : (
              <Stack gap="xs" component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }}>
                {list.map((account) => {
                  const Icon = ICONS[account.providerId] ?? IconKey;
                  return (
                    <Group
                      key={account.id}
                      component="li"
                      justify="space-between"
                      wrap="nowrap"
                      gap="sm"
                      aria-label={nameOf(account.providerId)}
                    >
                      <Group gap="sm" wrap="nowrap">
                        <Icon size={22} aria-hidden />
                        <Stack gap={0}>
                          <Text size="sm" fw={500}>
                            {nameOf(account.providerId)}
                          </Text>
                          <Text size="xs" c="dimmed">
                            Linked {formatDate(account.createdAt)}
                          </Text>
                        </Stack>
                      </Group>
                      <Button
                        variant="default"
                        size="xs"
                        onClick={() => setUnlinking(account)}
                        aria-label={`Unlink ${nameOf(account.providerId)}`}
                      >
                        Unlink
                      </Button>
                    </Group>
                  );
                })}
              </Stack>
            )
          }
        </QueryState>
      </SettingsSection>
      <SettingsSection title="Link a provider">
        {linkError && (
          <Alert color="red" role="alert">
            {linkError}
          </Alert>
        )}
        {providers.length === 0 ? (
          <Text c="dimmed" size="sm">
            This server has no sign-in providers configured (GitHub, Google or OpenID Connect).
          </Text>
        ) : (
          <Group gap="sm">
            {providers.map((p) => {
              const Icon = ICONS[p.id] ?? IconKey;
              const linked = accounts.data?.some((a) => a.providerId === p.id) ?? false;
              return (
                <Button
                  key={p.id}
                  variant="default"
                  leftSection={<Icon size={18} aria-hidden />}
                  loading={linking === p.id}
                  onClick={() => void link(p)}
                  rightSection={linked ? <Badge size="xs">linked</Badge> : undefined}
                >
                  Link {p.name}
                </Button>
              );
            })}
          </Group>
        )}
      </SettingsSection>
      <ConfirmDialog
        opened={unlinking !== null}
        onClose={() => setUnlinking(null)}
        title={`Unlink ${unlinking ? nameOf(unlinking.providerId) : ""}?`}
        confirmLabel="Unlink"
        onConfirm={async () => {
          if (!unlinking) return null;
          const refusal = await refusalOf(() => authClient.unlinkAccount({ accountId: unlinking.id }));
          if (refusal) return serverErrorMessage(refusal);
          await queryClient.invalidateQueries({ queryKey: linkedAccountsQuery.queryKey });
          return null;
        }}
      >
        You will no longer be able to sign in this way.
      </ConfirmDialog>
    </>
  );
}
