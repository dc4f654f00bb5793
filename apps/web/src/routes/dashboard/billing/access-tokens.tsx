import { useDisclosure } from "@mantine/hooks";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { ApiReferenceLink } from "../../../components/links";
import { AccessTokenForm } from "../../../features/access-tokens/access-token-form";
import { AccessTokensTable } from "../../../features/access-tokens/access-tokens-table";
import { useRevokeAccessToken } from "../../../features/access-tokens/queries";
import { useBilling } from "../../../features/billing/list";
import { ListPage, useRowDialog } from "../../../features/billing/list-page";
import { OnceSecret } from "../../../features/billing/once-secret";
import { FormModal } from "../../../features/billing/row-actions";
import { type AccessToken, V1Error } from "../../../lib/v1";

/** `/dashboard/{slug}/settings/access-tokens`: organization access tokens for the API. */
export function AccessTokensPage() {
  const { organizationId, canWrite } = useBilling();
  const revoke = useRevokeAccessToken(organizationId);
  const [creating, { open, close }] = useDisclosure(false);
  const [shown, setShown] = useState<string | null>(null);
  const revoking = useRowDialog<AccessToken>();

  return (
    <ListPage
      title="Access tokens"
      description={
        <>
          Tokens (polar_oat_...) let your servers and Polar's SDKs call this organization's billing API. Its
          endpoints are described in the <ApiReferenceLink />.
        </>
      }
      newAction={canWrite && { label: "New token", onClick: open }}
    >
      {shown && <OnceSecret label="Your new access token" value={shown} />}
      <AccessTokensTable organizationId={organizationId} canWrite={canWrite} onRevoke={revoking.open} />
      <FormModal opened={creating} onClose={close} title="New access token">
        <AccessTokenForm
          organizationId={organizationId}
          onDone={(token) => {
            close();
            setShown(token);
          }}
        />
      </FormModal>
      <ConfirmDialog
        opened={revoking.row !== null}
        onClose={revoking.close}
        title="Revoke this token?"
        confirmLabel="Revoke token"
        onConfirm={async () => {
          if (!revoking.row) return null;
          try {
            await revoke.mutateAsync(revoking.row.id);
            return null;
          } catch (e) {
            return e instanceof V1Error ? e : new V1Error(0, undefined, "Refused.");
          }
        }}
      >
        Calls with {revoking.row?.comment} are refused from now on.
      </ConfirmDialog>
    </ListPage>
  );
}
