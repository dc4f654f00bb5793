import { SCOPES } from "@kassa/contracts";
import { ActionIcon, Alert, Button, Modal, MultiSelect, Select, Stack, Text, TextInput } from "@mantine/core";
import { IconKey, IconPlus, IconTrash } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { DialogActions } from "../../../components/dialog-actions";
import { ApiReferenceLink } from "../../../components/links";
import { PageHeader } from "../../../components/states";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import {
  type AccessToken,
  type AccessTokenCreated,
  invalidate,
  listQuery,
  V1Error,
  v1,
} from "../../../lib/v1";
import { OnceSecret } from "./webhooks";

const EXPIRIES = [
  { value: "P7D", label: "7 days" },
  { value: "P30D", label: "30 days" },
  { value: "P90D", label: "90 days" },
  { value: "P365D", label: "1 year" },
  { value: "never", label: "Never" },
];

/** `/dashboard/{slug}/settings/access-tokens`: organization access tokens for the API. */
export function AccessTokensPage() {
  const { organizationId, canWrite } = useBilling();
  const { page, limit, search } = useListParams();
  const queryClient = useQueryClient();
  const tokens = useQuery(
    listQuery<AccessToken>(organizationId, "organization-access-tokens", {
      page,
      limit,
      sorting: search.sorting,
    }),
  );
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
      <ListView
        query={tokens}
        label="tokens"
        caption="Access tokens"
        empty={{
          icon: IconKey,
          title: "No access tokens yet",
          children: canWrite
            ? "Create a token with the scopes your integration needs, and an expiry."
            : "An owner or admin creates access tokens.",
        }}
        columns={[
          { label: "Name", render: (t) => t.comment },
          { label: "Scopes", render: (t) => <Text size="sm">{t.scopes.join(", ")}</Text> },
          { label: "Expires", render: (t) => (t.expires_at ? formatDate(t.expires_at) : "Never") },
          { label: "Last used", render: (t) => (t.last_used_at ? formatDate(t.last_used_at) : "Never") },
          { label: "Created", sort: "created_at", render: (t) => formatDate(t.created_at) },
          {
            label: "Actions",
            render: (t) =>
              canWrite && (
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Revoke ${t.comment}`}
                  onClick={() => setRevoking(t)}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              ),
          },
        ]}
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New access token" size="lg">
        {creating && (
          <TokenForm
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
            await v1(organizationId, `/organization-access-tokens/${revoking.id}`, { method: "DELETE" });
            await invalidate(queryClient, organizationId, "organization-access-tokens");
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

function TokenForm({ organizationId, onDone }: { organizationId: string; onDone: (token: string) => void }) {
  const queryClient = useQueryClient();
  const [comment, setComment] = useState("");
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState("P30D");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    const local: Record<string, string> = {};
    if (!comment.trim()) local.comment = "Name the token (what uses it).";
    if (scopes.length === 0) local.scopes = "Choose at least one scope.";
    setErrors(local);
    setRefusal(null);
    if (Object.keys(local).length) return;
    setSaving(true);
    try {
      const r = await v1<AccessTokenCreated>(organizationId, "/organization-access-tokens/", {
        method: "POST",
        body: { comment: comment.trim(), scopes, expires_in: expires === "never" ? null : expires },
      });
      await invalidate(queryClient, organizationId, "organization-access-tokens");
      onDone(r.token);
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) setErrors(e.fieldErrors());
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The token was not created">
          {refusal}
        </Alert>
      )}
      <TextInput
        label="Name"
        required
        value={comment}
        onChange={(e) => setComment(e.currentTarget.value)}
        error={errors.comment}
      />
      <MultiSelect
        label="Scopes"
        required
        searchable
        data={[...SCOPES]}
        value={scopes}
        onChange={setScopes}
        error={errors.scopes}
      />
      <Select
        label="Expires after"
        data={EXPIRIES}
        value={expires}
        onChange={(v) => v && setExpires(v)}
        allowDeselect={false}
        error={errors.expires_in}
      />
      <DialogActions>
        <Button loading={saving} onClick={() => void save()}>
          Create token
        </Button>
      </DialogActions>
    </Stack>
  );
}
