import { zodResolver } from "@hookform/resolvers/zod";
import { OrganizationUpdate } from "@kassa/contracts/v1";
import {
  ActionIcon,
  Alert,
  Button,
  Group,
  Paper,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { Controller, useFieldArray, useForm } from "react-hook-form";
import { z } from "zod";
import { PageHeader } from "../../components/states";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import { type BillingOrganization, SOCIAL_PLATFORMS } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { FormRefusal, SelectField } from "../billing/form";
import { useBilling } from "../billing/list";
import { useSaveBillingSettings } from "./queries";

/** The settings as edited: the contact, social links as rows, the rules as the organization has them. */
const BillingSettingsShape = z.object({
  email: z.string(),
  website: z.string(),
  socials: z.array(z.object({ platform: z.enum(SOCIAL_PLATFORMS), url: z.string() })),
  subscription_settings: z.custom<BillingOrganization["subscription_settings"]>(),
  feature_settings: z.custom<BillingOrganization["feature_settings"]>(),
});
export type BillingSettingsValues = z.output<typeof BillingSettingsShape>;

/** The request body of the billing settings. */
export function billingSettingsBody(v: BillingSettingsValues): z.input<typeof OrganizationUpdate> {
  return {
    email: v.email.trim() || null,
    website: v.website.trim() || null,
    socials: v.socials.map((s) => ({ platform: s.platform, url: s.url.trim() })),
    subscription_settings: v.subscription_settings,
    feature_settings: v.feature_settings,
  };
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  email: "email",
  website: "website",
  "socials.*": "socials",
  "subscription_settings.*": "subscription_settings",
  "feature_settings.*": "feature_settings",
};

const schema = checkedAgainst(BillingSettingsShape, OrganizationUpdate, billingSettingsBody, FIELDS);

const PRORATION = [
  { value: "prorate", label: "Prorate on the next invoice" },
  { value: "invoice", label: "Invoice the difference now" },
];

/** The organization's billing profile and subscription rules; read-only for members. */
export function BillingSettingsForm({ org }: { org: BillingOrganization }) {
  const { organizationId, canWrite } = useBilling();
  const save = useSaveBillingSettings(organizationId);
  const disabled = !canWrite;
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<BillingSettingsValues>({
    resolver: zodResolver(schema),
    defaultValues: {
      email: org.email ?? "",
      website: org.website ?? "",
      socials: org.socials,
      subscription_settings: org.subscription_settings,
      feature_settings: org.feature_settings,
    },
  });
  const socials = useFieldArray({ control, name: "socials" });

  const submit = handleSubmit(async (values) => {
    try {
      await save.mutateAsync(billingSettingsBody(values));
      notifications.show({ color: "green", message: "Billing settings saved." });
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, FIELDS);
    }
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="lg" maw={760}>
        <PageHeader title="Billing" description="How customers reach you, and how subscriptions behave." />
        {!canWrite && (
          <Alert color="gray" title="Read only">
            Only owners and admins can change these settings.
          </Alert>
        )}
        <FormRefusal errors={errors} title="The settings were not saved" />
        <Paper withBorder p="md" radius="md">
          <Stack gap="sm">
            <Title order={2} size="h4">
              Contact
            </Title>
            <TextInput
              label="Support e-mail"
              type="email"
              {...register("email")}
              error={errors.email?.message}
              disabled={disabled}
            />
            <TextInput
              label="Website"
              placeholder="https://"
              {...register("website")}
              error={errors.website?.message}
              disabled={disabled}
            />
            <Text size="sm" fw={500}>
              Social links
            </Text>
            {errors.socials?.message && (
              <Text c="red" size="sm">
                {errors.socials.message}
              </Text>
            )}
            {socials.fields.map((s, i) => (
              <Group key={s.id} gap="xs" align="flex-start">
                <SelectField
                  control={control}
                  name={`socials.${i}.platform`}
                  aria-label={`Platform ${i + 1}`}
                  data={[...SOCIAL_PLATFORMS]}
                  disabled={disabled}
                  w={140}
                />
                <TextInput
                  aria-label={`Link ${i + 1}`}
                  placeholder="https://"
                  {...register(`socials.${i}.url`)}
                  error={errors.socials?.[i]?.url?.message}
                  disabled={disabled}
                  style={{ flex: 1 }}
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove link ${i + 1}`}
                  onClick={() => socials.remove(i)}
                  disabled={disabled}
                  mt={4}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
            {canWrite && socials.fields.length < 10 && (
              <Button
                size="xs"
                variant="subtle"
                w="fit-content"
                leftSection={<IconPlus size={14} />}
                onClick={() => socials.append({ platform: "x", url: "" })}
              >
                Add a link
              </Button>
            )}
          </Stack>
        </Paper>
        <Paper withBorder p="md" radius="md">
          <Controller
            control={control}
            name="subscription_settings"
            render={({ field: { value: sub, onChange } }) => (
              <Stack gap="sm">
                <Title order={2} size="h4">
                  Subscriptions
                </Title>
                <Switch
                  label="Customers may hold several subscriptions at once"
                  checked={sub.allow_multiple_subscriptions}
                  onChange={(e) =>
                    onChange({ ...sub, allow_multiple_subscriptions: e.currentTarget.checked })
                  }
                  disabled={disabled}
                />
                <Switch
                  label="Customers may change their plan in the portal"
                  checked={sub.allow_customer_updates}
                  onChange={(e) => onChange({ ...sub, allow_customer_updates: e.currentTarget.checked })}
                  disabled={disabled}
                />
                <SelectField
                  control={control}
                  name="subscription_settings.proration_behavior"
                  label="When a plan changes mid-period"
                  data={PRORATION}
                  disabled={disabled}
                  w={320}
                />
              </Stack>
            )}
          />
        </Paper>
        <Paper withBorder p="md" radius="md">
          <Controller
            control={control}
            name="feature_settings"
            render={({ field: { value: features, onChange } }) => (
              <Stack gap="sm">
                <Title order={2} size="h4">
                  Features
                </Title>
                {Object.entries(features).map(([key, on]) => (
                  <Switch
                    key={key}
                    label={key.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())}
                    checked={on}
                    onChange={(e) => onChange({ ...features, [key]: e.currentTarget.checked })}
                    disabled={disabled}
                  />
                ))}
              </Stack>
            )}
          />
        </Paper>
        {canWrite && (
          <Group justify="flex-end">
            <Button type="submit" loading={isSubmitting}>
              Save billing settings
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
