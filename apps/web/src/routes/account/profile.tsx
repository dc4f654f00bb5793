import { lengthRules } from "@kassa/contracts";
import { Badge, Group, Text } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { ChangeEmailForm } from "../../features/account/change-email-form";
import { ProfileForm } from "../../features/account/profile-form";
import { authClient, refusalOf } from "../../lib/auth-client";
import { sessionQuery, usePublicConfig } from "../../lib/queries";

export function ProfilePage() {
  const session = useQuery(sessionQuery);
  const config = usePublicConfig();
  const rules = useMemo(() => lengthRules(config.data), [config.data]);
  const queryClient = useQueryClient();

  return (
    <>
      <PageHeader title="Profile" description="How you appear to the people you work with in Kassa." />
      <QueryState query={session} label="your profile">
        {(data) =>
          data && (
            <>
              <SettingsSection title="Your details">
                <ProfileForm
                  rules={rules}
                  defaults={{
                    name: data.user.name,
                    image: data.user.image ?? "",
                    username: data.user.username ?? "",
                    displayUsername: data.user.displayUsername ?? "",
                  }}
                  onSubmit={async ({ name, image, username, displayUsername }) => {
                    const refusal = await refusalOf(() =>
                      authClient.updateUser({
                        name,
                        image: image || null,
                        ...(username ? { username } : {}),
                        ...(username ? { displayUsername: displayUsername || username } : {}),
                      }),
                    );
                    if (!refusal) await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
                    return refusal;
                  }}
                />
              </SettingsSection>
              <SettingsSection
                title="E-mail address"
                description={
                  <>
                    To change it, we mail a confirmation link to your current address. When you open it, your
                    address becomes the new one and shows as unverified until you open the verification link
                    we then mail to the new address.
                  </>
                }
              >
                <Group gap="xs">
                  <Text size="sm" fw={500}>
                    {data.user.email}
                  </Text>
                  {data.user.emailVerified ? (
                    <Badge color="green" variant="light">
                      verified
                    </Badge>
                  ) : (
                    <Badge color="orange" variant="light">
                      not verified
                    </Badge>
                  )}
                </Group>
                <ChangeEmailForm
                  currentEmail={data.user.email}
                  onSubmit={({ newEmail }) =>
                    refusalOf(() => authClient.changeEmail({ newEmail, callbackURL: "/account" }))
                  }
                />
              </SettingsSection>
            </>
          )
        }
      </QueryState>
    </>
  );
}
