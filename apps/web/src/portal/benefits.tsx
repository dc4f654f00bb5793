import { Alert, Anchor, Badge, Button, Group, Loader, Paper, Select, Stack, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import { CopyValue } from "../components/copy-value";
import { type BenefitGrant, type LicenseKey, type PortalClient, V1Error } from "./api";
import { formatDate } from "./format";
import { useLoad } from "./use-load";

/** The fields the page reads of a grant's benefit (Polar's subscriber shape). */
interface GrantBenefit {
  id: string;
  type: string;
  description: string;
  properties: Record<string, unknown>;
}

const benefitOf = (g: BenefitGrant) => g.benefit as unknown as GrantBenefit;
const str = (v: unknown) => (typeof v === "string" ? v : null);

/**
 * What the customer was given: each benefit they hold (or that waits for them), with what it
 * gives: the seller's note, a license key to copy and its activations, files, or what the
 * customer has to do (connect an account). Grants are made by a job after the payment, so a
 * fresh purchase may take a moment to show.
 */
export function BenefitsSection({
  client,
  organizationId,
  onExpired,
}: {
  client: PortalClient;
  organizationId: string;
  onExpired: () => void;
}) {
  const grants = useLoad(() => client.benefitGrants(), onExpired, [client]);
  // A grant the job has not made yet (nor failed): look again in a few seconds.
  const waiting =
    grants.state === "ready" && grants.data.items.some((g) => !g.is_granted && !g.is_revoked && !g.error);
  const { reload } = grants;
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(reload, 3000);
    return () => clearTimeout(timer);
  }, [waiting, reload]);
  if (grants.state === "loading") return <Loader size="sm" aria-label="Loading" />;
  if (grants.state === "error") return <Text c="red">{grants.message}</Text>;
  const shown = grants.data.items.filter((g) => !g.is_revoked);
  const connectError = connectErrorOf(window.location.search);
  if (shown.length === 0)
    return (
      <Stack gap="xs" align="flex-start">
        <Text size="sm" c="dimmed">
          You have no benefits yet. What comes with your purchases (license keys, files, notes from the
          seller) shows up here a moment after you pay.
        </Text>
        <Button size="xs" variant="default" onClick={grants.reload}>
          Refresh
        </Button>
      </Stack>
    );
  return (
    <Stack gap="sm">
      {connectError && (
        <Alert color="red" variant="light" title={`Connecting ${connectError.platform} did not work`}>
          {connectError.message} Try again with the button below.
        </Alert>
      )}
      {shown.map((g) => (
        <GrantCard
          key={g.id}
          grant={g}
          client={client}
          organizationId={organizationId}
          onExpired={onExpired}
          onChanged={grants.reload}
        />
      ))}
    </Stack>
  );
}

function GrantCard({
  grant,
  client,
  organizationId,
  onExpired,
  onChanged,
}: {
  grant: BenefitGrant;
  client: PortalClient;
  organizationId: string;
  onExpired: () => void;
  onChanged: () => void;
}) {
  const benefit = benefitOf(grant);
  const platform = PLATFORM_OF[benefit.type];
  return (
    <Paper withBorder radius="md" p="md" data-testid="benefit" data-benefit-type={benefit.type}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Text fw={600}>{benefit.description}</Text>
          {grant.is_granted ? (
            <Text size="xs" c="dimmed">
              {grant.granted_at ? `Since ${formatDate(grant.granted_at)}` : ""}
            </Text>
          ) : (
            <Badge color={grant.error ? "yellow" : "gray"} variant="light" size="sm">
              {grant.error ? "Needs you" : "On its way"}
            </Badge>
          )}
        </Group>
        {grant.error ? (
          <Stack gap="xs" align="flex-start">
            <Alert color="yellow" variant="light" w="100%">
              {grant.error.message}
            </Alert>
            {PLATFORM_OF[benefit.type] && grant.error.type === "BenefitActionRequiredError" && (
              <ConnectButton platform={PLATFORM_OF[benefit.type]!} client={client} onExpired={onExpired} />
            )}
          </Stack>
        ) : (
          <GrantBody
            grant={grant}
            benefit={benefit}
            client={client}
            organizationId={organizationId}
            onExpired={onExpired}
          />
        )}
        {platform && (grant.is_granted || grant.error?.type !== "BenefitActionRequiredError") && (
          <AccountChoice
            grant={grant}
            platform={platform}
            client={client}
            onExpired={onExpired}
            onChanged={onChanged}
          />
        )}
      </Stack>
    </Paper>
  );
}

function GrantBody({
  grant,
  benefit,
  client,
  organizationId,
  onExpired,
}: {
  grant: BenefitGrant;
  benefit: GrantBenefit;
  client: PortalClient;
  organizationId: string;
  onExpired: () => void;
}) {
  const props = grant.properties;
  switch (benefit.type) {
    case "custom": {
      const note = str(benefit.properties.note);
      return note ? (
        <Text size="sm" style={{ whiteSpace: "pre-wrap" }} data-testid="benefit-note">
          {note}
        </Text>
      ) : null;
    }
    case "license_keys": {
      const keyId = str(props.license_key_id);
      if (!keyId)
        return (
          <Text size="sm" c="dimmed">
            Your license key is being made.
          </Text>
        );
      return (
        <LicenseKeyView keyId={keyId} client={client} organizationId={organizationId} onExpired={onExpired} />
      );
    }
    case "downloadables":
      return <DownloadsView benefitId={grant.benefit_id} client={client} onExpired={onExpired} />;
    case "meter_credit":
      return (
        <Text size="sm" c="dimmed">
          {typeof benefit.properties.units === "number"
            ? `${benefit.properties.units} units credited; see Usage.`
            : "Credits; see Usage."}
        </Text>
      );
    case "github_repository": {
      const owner = str(props.repository_owner) ?? str(benefit.properties.repository_owner);
      const name = str(props.repository_name) ?? str(benefit.properties.repository_name);
      if (!owner || !name) return null;
      return grant.is_granted ? (
        <Text size="sm" data-testid="benefit-github">
          GitHub invited you to {`${owner}/${name}`}.{" "}
          <Anchor href={`https://github.com/${owner}/${name}/invitations`} target="_blank" rel="noreferrer">
            Accept the invitation
          </Anchor>{" "}
          if you have not yet.
        </Text>
      ) : (
        <Text size="sm">Access to {`${owner}/${name}`} on GitHub.</Text>
      );
    }
    case "discord":
      return (
        <Text size="sm" data-testid="benefit-discord">
          {grant.is_granted
            ? "You have your role on the seller's Discord server."
            : "A role on the seller's Discord server."}
        </Text>
      );
    default:
      return null;
  }
}

/** The account a benefit type needs the customer to connect. */
const PLATFORM_OF: Record<string, "github" | "discord" | undefined> = {
  github_repository: "github",
  discord: "discord",
};
const PLATFORM_NAME = { github: "GitHub", discord: "Discord" } as const;

/** What the server's connect callback said went wrong, from the address it sent the customer back to. */
export function connectErrorOf(search: string): { platform: string; message: string } | null {
  const params = new URLSearchParams(search);
  const platform = params.get("error_platform");
  const message = params.get("error");
  if (!platform || !message) return null;
  const name = PLATFORM_NAME[platform as keyof typeof PLATFORM_NAME] ?? platform;
  return { platform: name, message: message === "access_denied" ? "You declined the access." : message };
}

/**
 * Sends the customer to GitHub or Discord to authorize; they come back to this page (without
 * its query, so an old error does not linger) and the grant completes a moment later.
 */
export function ConnectButton({
  platform,
  client,
  onExpired,
  label,
}: {
  platform: "github" | "discord";
  client: PortalClient;
  onExpired: () => void;
  /** The button's words (default "Connect GitHub" or "Connect Discord"). */
  label?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const { url } = await client.authorizeConnect(
        platform,
        `${window.location.origin}${window.location.pathname}`,
      );
      window.location.assign(url);
    } catch (e) {
      setBusy(false);
      if (e instanceof V1Error && e.status === 401) return onExpired();
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <Stack gap={4} align="flex-start">
      <Button size="xs" variant={label ? "default" : "filled"} loading={busy} onClick={start}>
        {label ?? `Connect ${PLATFORM_NAME[platform]}`}
      </Button>
      {error && (
        <Text size="xs" c="red">
          {error}
        </Text>
      )}
    </Stack>
  );
}

/** "No account": the grant's access is taken away until the customer picks one again. */
const NO_ACCOUNT = "none";

/**
 * Which of the customer's connected accounts receives a GitHub or Discord grant's access, and a
 * way to change it (Polar's `PATCH /v1/customer-portal/benefit-grants/{id}`); the server grants
 * it again in the background, so the card shows "On its way" until it has.
 */
export function AccountChoice({
  grant,
  platform,
  client,
  onExpired,
  onChanged,
}: {
  grant: BenefitGrant;
  platform: "github" | "discord";
  client: PortalClient;
  onExpired: () => void;
  onChanged: () => void;
}) {
  const me = useLoad(() => client.me(), onExpired, [client]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (me.state !== "ready") return null;
  const accounts = Object.entries(me.data.oauth_accounts)
    .filter(([key]) => key.startsWith(`${platform}:`))
    .map(([, a]) => ({ value: a.account_id, label: a.account_username ?? a.account_id }));
  if (accounts.length === 0) return null;
  const current = str(grant.properties.account_id) ?? NO_ACCOUNT;
  const choose = async (value: string | null) => {
    if (!value || value === current) return;
    setSaving(true);
    setError(null);
    try {
      await client.updateBenefitGrant(grant.id, {
        benefit_type: platform === "github" ? "github_repository" : "discord",
        properties: { account_id: value === NO_ACCOUNT ? null : value },
      });
      onChanged();
    } catch (e) {
      if (e instanceof V1Error && e.status === 401) return onExpired();
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack gap={4} align="flex-start">
      <Group gap="xs" align="flex-end">
        <Select
          size="xs"
          label={`${PLATFORM_NAME[platform]} account with the access`}
          data={[...accounts, { value: NO_ACCOUNT, label: "No account (remove the access)" }]}
          value={current}
          onChange={(value) => void choose(value)}
          disabled={saving}
          allowDeselect={false}
          w={260}
        />
        <ConnectButton platform={platform} client={client} onExpired={onExpired} label="Connect another" />
      </Group>
      {error && (
        <Text size="xs" c="red" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  );
}

const KEY_STATUS: Record<string, { label: string; color: string }> = {
  granted: { label: "Active", color: "green" },
  revoked: { label: "Revoked", color: "gray" },
  disabled: { label: "Disabled", color: "red" },
};

/** The benefit's files, each a link that downloads it (signed, for ten minutes: fetched on view). */
function DownloadsView({
  benefitId,
  client,
  onExpired,
}: {
  benefitId: string;
  client: PortalClient;
  onExpired: () => void;
}) {
  const files = useLoad(() => client.downloadables(benefitId), onExpired, [client, benefitId]);
  if (files.state === "loading") return <Loader size="xs" aria-label="Loading the files" />;
  if (files.state === "error") return <Text c="red">{files.message}</Text>;
  if (files.data.items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No files yet.
      </Text>
    );
  return (
    <Stack gap={4}>
      {files.data.items.map((d) => (
        <Group key={d.id} gap="xs">
          <Anchor href={d.file.download.url} download={d.file.name} size="sm">
            Download {d.file.name}
          </Anchor>
          <Text size="xs" c="dimmed">
            {d.file.size_readable}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}

function LicenseKeyView({
  keyId,
  client,
  organizationId,
  onExpired,
}: {
  keyId: string;
  client: PortalClient;
  organizationId: string;
  onExpired: () => void;
}) {
  const key = useLoad(() => client.licenseKey(keyId), onExpired, [client, keyId]);
  if (key.state === "loading") return <Loader size="xs" aria-label="Loading the license key" />;
  if (key.state === "error") return <Text c="red">{key.message}</Text>;
  return (
    <LicenseKeyDetails
      license={key.data}
      client={client}
      organizationId={organizationId}
      onChanged={key.reload}
    />
  );
}

function LicenseKeyDetails({
  license,
  client,
  organizationId,
  onChanged,
}: {
  license: LicenseKey;
  client: PortalClient;
  organizationId: string;
  onChanged: () => void;
}) {
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const status = KEY_STATUS[license.status] ?? { label: license.status, color: "gray" };
  const deactivate = async (activation: LicenseKey["activations"][number]) => {
    // It frees the activation for good (the device must activate again): asked first, as removing a card is.
    if (!window.confirm(`Deactivate ${activation.label}? It has to be activated again to use the key there.`))
      return;
    const activationId = activation.id;
    setPending(activationId);
    setError(null);
    try {
      await client.deactivate({
        key: license.key,
        organization_id: organizationId,
        activation_id: activationId,
      });
      onChanged();
    } catch (e) {
      setError(e instanceof Error ? e.message : "The activation could not be removed.");
    } finally {
      setPending(null);
    }
  };
  const facts = [
    license.expires_at ? `Expires ${formatDate(license.expires_at)}` : "Never expires",
    license.limit_usage !== null ? `Used ${license.usage} of ${license.limit_usage}` : null,
    // The activations are listed only when the seller lets customers manage them (else empty).
    license.limit_activations !== null ? `Up to ${license.limit_activations} activations` : null,
  ].filter(Boolean);
  return (
    <Stack gap="xs">
      <CopyValue value={license.key} label="Copy license key" testId="license-key" />
      <Group gap="xs">
        <Badge color={status.color} variant="light" size="sm">
          {status.label}
        </Badge>
        <Text size="xs" c="dimmed">
          {facts.join(" · ")}
        </Text>
      </Group>
      {license.activations.length > 0 && (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Activations
          </Text>
          {license.activations.map((a) => (
            <Group key={a.id} justify="space-between" wrap="nowrap" data-testid="activation">
              <Text size="sm">
                {a.label}{" "}
                <Text span size="xs" c="dimmed">
                  {formatDate(a.created_at)}
                </Text>
              </Text>
              <Button
                size="xs"
                variant="default"
                loading={pending === a.id}
                onClick={() => void deactivate(a)}
              >
                Deactivate
              </Button>
            </Group>
          ))}
        </Stack>
      )}
      {error && (
        <Text size="sm" c="red" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  );
}
