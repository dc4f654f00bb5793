import {
  ActionIcon,
  Alert,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import {
  type BillingOrganization,
  getQuery,
  invalidate,
  SOCIAL_PLATFORMS,
  V1Error,
  v1,
} from "../../../lib/v1";

/** `/dashboard/{slug}/settings/billing`: the organization's billing profile and subscription rules. */
export function BillingSettingsPage() {
  const { organizationId } = useBilling();
  const org = useQuery(getQuery<BillingOrganization>(organizationId, "organizations", organizationId));
  if (org.isPending) return <LoadingState label="Loading billing settings" />;
  if (org.isError) return <ErrorState error={org.error} onRetry={() => void org.refetch()} />;
  return <BillingSettingsForm key={org.data.modified_at ?? org.data.id} org={org.data} />;
}

function BillingSettingsForm({ org }: { org: BillingOrganization }) {
  const { organizationId, canWrite } = useBilling();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(org.email ?? "");
  const [website, setWebsite] = useState(org.website ?? "");
  const [socials, setSocials] = useState(org.socials);
  const [sub, setSub] = useState(org.subscription_settings);
  const [features, setFeatures] = useState(org.feature_settings);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const disabled = !canWrite;

  const save = async () => {
    setErrors({});
    setRefusal(null);
    setSaving(true);
    try {
      await v1(organizationId, `/organizations/${org.id}`, {
        method: "PATCH",
        body: {
          email: email.trim() || null,
          website: website.trim() || null,
          socials,
          subscription_settings: sub,
          feature_settings: features,
        },
      });
      await invalidate(queryClient, organizationId, "organizations");
      notifications.show({ color: "green", message: "Billing settings saved." });
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) setErrors(e.fieldErrors());
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="lg" maw={760}>
      <PageHeader title="Billing" description="How customers reach you, and how subscriptions behave." />
      {!canWrite && (
        <Alert color="gray" title="Read only">
          Only owners and admins can change these settings.
        </Alert>
      )}
      {refusal && (
        <Alert color="red" role="alert" title="The settings were not saved">
          {refusal}
        </Alert>
      )}
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            Contact
          </Title>
          <TextInput
            label="Support e-mail"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={errors.email}
            disabled={disabled}
          />
          <TextInput
            label="Website"
            placeholder="https://"
            value={website}
            onChange={(e) => setWebsite(e.currentTarget.value)}
            error={errors.website}
            disabled={disabled}
          />
          <Text size="sm" fw={500}>
            Social links
          </Text>
          {socials.map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
            <Group key={i} gap="xs" align="flex-start">
              <Select
                aria-label={`Platform ${i + 1}`}
                data={[...SOCIAL_PLATFORMS]}
                value={s.platform}
                onChange={(v) => {
                  const platform = SOCIAL_PLATFORMS.find((p) => p === v);
                  if (platform) setSocials(socials.map((x, j) => (j === i ? { ...x, platform } : x)));
                }}
                allowDeselect={false}
                disabled={disabled}
                w={140}
              />
              <TextInput
                aria-label={`Link ${i + 1}`}
                placeholder="https://"
                value={s.url}
                onChange={(e) => {
                  const url = e.currentTarget.value;
                  setSocials(socials.map((x, j) => (j === i ? { ...x, url } : x)));
                }}
                error={errors[`socials.${i}.url`]}
                disabled={disabled}
                style={{ flex: 1 }}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove link ${i + 1}`}
                onClick={() => setSocials(socials.filter((_, j) => j !== i))}
                disabled={disabled}
                mt={4}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
          {canWrite && socials.length < 10 && (
            <Button
              size="xs"
              variant="subtle"
              w="fit-content"
              leftSection={<IconPlus size={14} />}
              onClick={() => setSocials([...socials, { platform: "x", url: "" }])}
            >
              Add a link
            </Button>
          )}
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            Subscriptions
          </Title>
          <Switch
            label="Customers may hold several subscriptions at once"
            checked={sub.allow_multiple_subscriptions}
            onChange={(e) => setSub({ ...sub, allow_multiple_subscriptions: e.currentTarget.checked })}
            disabled={disabled}
          />
          <Switch
            label="Customers may change their plan in the portal"
            checked={sub.allow_customer_updates}
            onChange={(e) => setSub({ ...sub, allow_customer_updates: e.currentTarget.checked })}
            disabled={disabled}
          />
          <Select
            label="When a plan changes mid-period"
            data={[
              { value: "prorate", label: "Prorate on the next invoice" },
              { value: "invoice", label: "Invoice the difference now" },
            ]}
            value={sub.proration_behavior}
            onChange={(v) =>
              (v === "invoice" || v === "prorate") && setSub({ ...sub, proration_behavior: v })
            }
            allowDeselect={false}
            disabled={disabled}
            w={320}
          />
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            Features
          </Title>
          {Object.entries(features).map(([key, on]) => (
            <Switch
              key={key}
              label={key.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())}
              checked={on}
              onChange={(e) => setFeatures({ ...features, [key]: e.currentTarget.checked })}
              disabled={disabled}
            />
          ))}
        </Stack>
      </Paper>
      {canWrite && (
        <Group justify="flex-end">
          <Button loading={saving} onClick={() => void save()}>
            Save billing settings
          </Button>
        </Group>
      )}
    </Stack>
  );
}
