import { zodResolver } from "@hookform/resolvers/zod";
import { LicenseKeyUpdate } from "@kassa/contracts/v1";
import { Button, Group, Stack, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import { checkedAgainst } from "../../lib/wire-form";
import { FormRefusal, NumberField } from "../billing/form";
import { type LicenseKey, type LicenseKeyPatch, useUpdateLicenseKey } from "./queries";

/** An ISO instant as a `datetime-local` value in the viewer's zone (to the minute), and back. */
export const toLocalInput = (iso: string | null | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

/** The limits as typed: empty numbers are `undefined` (no limit), an empty expiry is never. */
const LicenseKeyFormShape = z.object({
  limit_activations: z
    .number()
    .int("A whole number of devices.")
    .min(1, "At least 1; empty for a key that takes no activations.")
    .optional(),
  limit_usage: z.number().int("A whole number of uses.").min(1, "At least 1; empty for no limit.").optional(),
  usage: z.number({ error: "Enter the uses counted so far (0 resets them)." }).int("A whole number of uses."),
  expires_at: z.string(),
});
export type LicenseKeyFormValues = z.output<typeof LicenseKeyFormShape>;

const valuesOf = (k: LicenseKey): LicenseKeyFormValues => ({
  limit_activations: k.limit_activations ?? undefined,
  limit_usage: k.limit_usage ?? undefined,
  usage: k.usage,
  expires_at: toLocalInput(k.expires_at),
});

/**
 * The `PATCH` body of the form: only what changed from `opened` (the values the form opened
 * with), so a save of the limits does not put back a usage count that validations have moved
 * since; an emptied field clears.
 */
export function licenseKeyPatch(opened: LicenseKeyFormValues, v: LicenseKeyFormValues): LicenseKeyPatch {
  const body: LicenseKeyPatch = {};
  if (v.limit_activations !== opened.limit_activations) body.limit_activations = v.limit_activations ?? null;
  if (v.limit_usage !== opened.limit_usage) body.limit_usage = v.limit_usage ?? null;
  if (v.usage !== opened.usage) body.usage = v.usage;
  if (v.expires_at !== opened.expires_at) body.expires_at = fromLocalInput(v.expires_at);
  return body;
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  limit_activations: "limit_activations",
  limit_usage: "limit_usage",
  usage: "usage",
  expires_at: "expires_at",
};

/**
 * Edits a key's limits, usage and expiry (`PATCH /v1/license-keys/{id}`). Mounted once per key:
 * a refresh of the key (its usage moving) does not reset what is being typed.
 */
export function LicenseKeyForm({
  licenseKey,
  organizationId,
}: {
  licenseKey: LicenseKey;
  organizationId: string;
}) {
  const update = useUpdateLicenseKey(organizationId);
  // The values the form opened with (or last saved): what a save compares with.
  const [opened, setOpened] = useState(() => valuesOf(licenseKey));
  const schema = useMemo(
    () =>
      checkedAgainst(
        LicenseKeyFormShape,
        LicenseKeyUpdate,
        (v: LicenseKeyFormValues) => licenseKeyPatch(opened, v),
        FIELDS,
      ),
    [opened],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<LicenseKeyFormValues>({ resolver: zodResolver(schema), defaultValues: opened });

  const submit = handleSubmit(async (values) => {
    const body = licenseKeyPatch(opened, values);
    if (Object.keys(body).length === 0) return;
    try {
      const saved = await update.mutateAsync({ id: licenseKey.id, body });
      const next = valuesOf(saved);
      setOpened(next);
      reset(next);
      notifications.show({ color: "green", message: "License key saved." });
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, FIELDS);
    }
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Limits and expiry">
      <Stack gap="md">
        <FormRefusal errors={errors} title="The license key was not saved" />
        <Group grow align="flex-start">
          <NumberField
            control={control}
            name="limit_activations"
            label="Activation limit"
            description="Devices it can be activated on. Empty: no activations, the key is only validated."
            min={1}
            allowDecimal={false}
          />
          <NumberField
            control={control}
            name="limit_usage"
            label="Usage limit"
            description="Uses validations may count. Empty: no limit."
            min={1}
            allowDecimal={false}
          />
        </Group>
        <Group grow align="flex-start">
          <NumberField
            control={control}
            name="usage"
            label="Usage"
            description="Uses counted so far; 0 resets them."
            required
            min={0}
            allowDecimal={false}
          />
          <TextInput
            type="datetime-local"
            label="Expires"
            description="Empty: never expires."
            {...register("expires_at")}
            error={errors.expires_at?.message}
          />
        </Group>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={() => reset(opened)} disabled={!isDirty}>
            Undo changes
          </Button>
          <Button type="submit" loading={isSubmitting} disabled={!isDirty}>
            Save limits
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
