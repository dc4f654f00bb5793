import { Button, Code, Group, Stack, Table, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { ErrorState, LoadingState } from "../../components/states";
import { formatDateTime } from "../../lib/format";
import { V1Error } from "../../lib/v1";
import { CopyIcon, Details, Section } from "../billing/commerce";
import { LicenseKeyForm } from "./license-key-form";
import { CustomerCell, ExpiryText } from "./license-keys-table";
import {
  type LicenseKeyActivation,
  type LicenseKeyWithActivations,
  licenseKeyBenefitsQuery,
  licenseKeyQuery,
  useDeactivateActivation,
  useUpdateLicenseKey,
} from "./queries";
import { LicenseKeyStatusBadge, type StatusChange, statusChanges, usageText } from "./status";

const CHANGE_COLORS: Record<StatusChange["to"], string> = {
  granted: "green",
  disabled: "yellow",
  revoked: "red",
};

/** An activation's `meta` on one line ("os: linux, version: 2"), or a dash. */
const metaText = (meta: LicenseKeyActivation["meta"]) => {
  const entries = Object.entries(meta);
  return entries.length ? entries.map(([k, v]) => `${k}: ${String(v)}`).join(", ") : "—";
};

/** The devices a key is activated on; a merchant who may write can remove one (asked first). */
function Activations({
  licenseKey,
  canWrite,
  onRemove,
}: {
  licenseKey: LicenseKeyWithActivations;
  canWrite: boolean;
  onRemove: (activation: LicenseKeyActivation) => void;
}) {
  if (licenseKey.activations.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {licenseKey.limit_activations === null
          ? "This key takes no activations: it is only validated. Set an activation limit to let devices activate it."
          : "No device has activated this key yet."}
      </Text>
    );
  return (
    <Table striped aria-label="Activations">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Label</Table.Th>
          <Table.Th>Meta</Table.Th>
          <Table.Th>Created</Table.Th>
          {canWrite && <Table.Th>Actions</Table.Th>}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {licenseKey.activations.map((a) => (
          <Table.Tr key={a.id}>
            <Table.Td>{a.label}</Table.Td>
            <Table.Td>
              <Text size="sm" style={{ wordBreak: "break-word" }}>
                {metaText(a.meta)}
              </Text>
            </Table.Td>
            <Table.Td>{formatDateTime(a.created_at)}</Table.Td>
            {canWrite && (
              <Table.Td>
                <Button
                  size="xs"
                  variant="default"
                  onClick={() => onRemove(a)}
                  aria-label={`Deactivate ${a.label}`}
                >
                  Deactivate
                </Button>
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * One license key: its customer, benefit, status, usage, activations and expiry. A merchant
 * who may write disables, revokes or re-enables it (asked first), edits its limits and expiry,
 * and removes activations.
 */
export function LicenseKeyDetail({
  organizationId,
  keyId,
  slug,
  canWrite,
}: {
  organizationId: string;
  keyId: string;
  slug: string;
  canWrite: boolean;
}) {
  const key = useQuery(licenseKeyQuery(organizationId, keyId));
  const benefits = useQuery(licenseKeyBenefitsQuery(organizationId));
  const update = useUpdateLicenseKey(organizationId);
  const deactivate = useDeactivateActivation(organizationId);
  const [changing, setChanging] = useState<StatusChange | null>(null);
  const [removing, setRemoving] = useState<LicenseKeyActivation | null>(null);

  if (key.isPending) return <LoadingState label="Loading the license key" />;
  if (key.isError) return <ErrorState error={key.error} onRetry={() => void key.refetch()} />;
  const k = key.data;
  const benefit = benefits.data?.items.find((b) => b.id === k.benefit_id);

  return (
    <Stack gap="lg">
      <Details
        label="The license key"
        rows={[
          [
            "Key",
            <Group gap={4} wrap="nowrap" key="key">
              <Code style={{ wordBreak: "break-all" }}>{k.key}</Code>
              <CopyIcon value={k.key} label="the license key" />
            </Group>,
          ],
          ["Customer", <CustomerCell slug={slug} licenseKey={k} key="customer" />],
          ["Benefit", benefit?.description ?? "—"],
          ["Status", <LicenseKeyStatusBadge status={k.status} key="status" />],
          ["Usage", usageText(k)],
          [
            "Activations",
            k.limit_activations === null ? "Not used" : `${k.activations.length} / ${k.limit_activations}`,
          ],
          [
            "Validations",
            k.last_validated_at
              ? `${k.validations}, last ${formatDateTime(k.last_validated_at)}`
              : String(k.validations),
          ],
          ["Expires", <ExpiryText expiresAt={k.expires_at} key="expires" />],
          ["Created", formatDateTime(k.created_at)],
        ]}
      />
      {canWrite && (
        <Group gap="sm">
          {statusChanges(k.status).map((c) => (
            <Button key={c.to} variant="light" color={CHANGE_COLORS[c.to]} onClick={() => setChanging(c)}>
              {c.action}
            </Button>
          ))}
        </Group>
      )}
      {canWrite && (
        <Section title="Limits and expiry">
          <LicenseKeyForm key={k.id} licenseKey={k} organizationId={organizationId} />
        </Section>
      )}
      <Section title="Activations">
        <Activations licenseKey={k} canWrite={canWrite} onRemove={setRemoving} />
      </Section>
      <ConfirmDialog
        opened={changing !== null}
        onClose={() => setChanging(null)}
        title={changing?.title ?? ""}
        confirmLabel={changing?.confirmLabel ?? ""}
        onConfirm={async () => {
          if (!changing) return null;
          try {
            await update.mutateAsync({ id: k.id, body: { status: changing.to } });
            notifications.show({
              color: "green",
              message: `License key ${changing.to === "granted" ? "re-enabled" : changing.to}.`,
            });
            return null;
          } catch (e) {
            return e instanceof V1Error ? e : "The status was not changed.";
          }
        }}
      >
        {changing?.explanation}
      </ConfirmDialog>
      <ConfirmDialog
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title="Deactivate this device?"
        confirmLabel="Deactivate"
        onConfirm={async () => {
          if (!removing) return null;
          try {
            await deactivate.mutateAsync({ key: k.key, activationId: removing.id });
            return null;
          } catch (e) {
            return e instanceof V1Error ? e : "The activation was not removed.";
          }
        }}
      >
        {removing?.label} loses its activation: the app on it must activate the key again, which frees a place
        under the activation limit.
      </ConfirmDialog>
    </Stack>
  );
}
