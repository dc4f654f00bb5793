import { Button, Modal, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { ApiReferenceLink } from "../../../components/links";
import { PageHeader } from "../../../components/states";
import { AccessTokenForm } from "../../../features/access-tokens/access-token-form";
import { AccessTokensTable } from "../../../features/access-tokens/access-tokens-table";
import { useRevokeAccessToken } from "../../../features/access-tokens/queries";
import { useBilling } from "../../../features/billing/list";
import { OnceSecret } from "../../../features/billing/once-secret";
import { type AccessToken, V1Error } from "../../../lib/v1";

/** `/dashboard/{slug}/settings/access-tokens`: organization access tokens for the API. */
export function AccessTokensPage() {
  const { organizationId, canWrite } = useBilling();
  const revoke = useRevokeAccessToken(organizationId);
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<AccessToken | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Access tokens"
        description={
          <>
            Tokens (polar_oat_...) let your servers and Polar's SDKs call this organization's billing API. Its
            endpoints are described in the <ApiReferenceLink />.
          </>
        }
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New token
            </Button>
          )
        }
      />
      {shown && <OnceSecret label="Your new access token" value={shown} />}
      <AccessTokensTable organizationId={organizationId} canWrite={canWrite} onRevoke={setRevoking} />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New access token" size="lg">
        {creating && (
          <AccessTokenForm
            organizationId={organizationId}
            onDone={(token) => {
              setCreating(false);
              setShown(token);
            }}
          />
        )}
      </Modal>
      <ConfirmDialog
        opened={revoking !== null}
        onClose={() => setRevoking(null)}
        title="Revoke this token?"
        confirmLabel="Revoke token"
        onConfirm={async () => {
          if (!revoking) return null;
          try {
            await revoke.mutateAsync(revoking.id);
            return null;
          } catch (e) {
            return e instanceof V1Error ? e : new V1Error(0, undefined, "Refused.");
          }
        }}
      >
        Calls with {revoking?.comment} are refused from now on.
      </ConfirmDialog>
    </Stack>
  );
}
