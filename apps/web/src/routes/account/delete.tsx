import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { PageHeader } from "../../components/page-header";
import { QueryState } from "../../components/query-state";
import { SettingsSection } from "../../components/settings-section";
import { DeleteAccountForm } from "../../features/account/delete-account-form";
import { linkedAccountsQuery } from "../../features/account/queries";
import { authClient, refusalOf } from "../../lib/auth-client";
import { sessionQuery } from "../../lib/queries";

/** Where the mailed confirmation link, and a deletion by password, end. */
export const ACCOUNT_DELETED_PATH = "/account-deleted";

export function DeleteAccountPage() {
  const accounts = useQuery(linkedAccountsQuery);
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  return (
    <>
      <PageHeader
        title="Delete account"
        description="Your account, its sessions, linked accounts and API keys are deleted. This cannot be undone."
      />
      <SettingsSection title="Delete your account" danger>
        <QueryState query={accounts} label="your sign-in methods">
          {(list) => (
            <DeleteAccountForm
              hasPassword={list.some((a) => a.providerId === "credential")}
              onSubmit={async ({ password }) => {
                const refusal = await refusalOf(() =>
                  authClient.deleteUser({
                    callbackURL: ACCOUNT_DELETED_PATH,
                    ...(password ? { password } : {}),
                  }),
                );
                if (refusal) return refusal;
                if (!password) return "mailed";
                queryClient.setQueryData(sessionQuery.queryKey, null);
                queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== "public-config" });
                await navigate({ to: ACCOUNT_DELETED_PATH });
                return "deleted";
              }}
            />
          )}
        </QueryState>
      </SettingsSection>
    </>
  );
}
