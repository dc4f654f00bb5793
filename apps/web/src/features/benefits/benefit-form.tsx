import { zodResolver } from "@hookform/resolvers/zod";
import {
  BENEFIT_TYPES,
  BenefitCreate,
  BenefitUpdate,
  GITHUB_PERMISSIONS,
  LICENSE_KEY_TIMEFRAMES,
} from "@kassa/contracts/v1";
import { Button, FileButton, Group, Stack, Switch, Textarea, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { type Control, Controller, type FieldPath, useForm } from "react-hook-form";
import { z } from "zod";
import type { FieldMap } from "../../lib/server-errors";
import { type Benefit, listQuery, type Meter } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { EditorForm, FormActions, NumberField, SelectField, submitRow } from "../billing/form";
import { BENEFIT_LABELS } from "./benefits-table";
import { useSaveBenefit } from "./queries";
import { uploadDownloadable } from "./upload-files";

/** The benefit as edited: the properties of every kind (one shown at a time), as typed. */
const BenefitFormShape = z.object({
  type: z.enum(BENEFIT_TYPES),
  description: z.string(),
  properties: z.object({
    note: z.string(),
    guild_id: z.string(),
    role_id: z.string(),
    kick_member: z.boolean(),
    /** Downloadables: one file id a line. */
    files: z.string(),
    archived: z.record(z.string(), z.boolean()),
    repository_owner: z.string(),
    repository_name: z.string(),
    permission: z.enum(GITHUB_PERMISSIONS).nullable(),
    prefix: z.string(),
    expires: z.object({ ttl: z.number().optional(), timeframe: z.enum(LICENSE_KEY_TIMEFRAMES) }).nullable(),
    activations: z.object({ limit: z.number().optional(), enable_customer_admin: z.boolean() }).nullable(),
    limit_usage: z.number().optional(),
    meter_id: z.string().nullable(),
    units: z.number().optional(),
    rollover: z.boolean(),
  }),
});
export type BenefitFormValues = z.output<typeof BenefitFormShape>;
type FormProperties = BenefitFormValues["properties"];

const emptyProperties: FormProperties = {
  note: "",
  guild_id: "",
  role_id: "",
  kick_member: false,
  files: "",
  archived: {},
  repository_owner: "",
  repository_name: "",
  permission: null,
  prefix: "",
  expires: null,
  activations: null,
  meter_id: null,
  rollover: false,
};

/** The request body: the properties of the benefit's kind. */
export function benefitBody(v: BenefitFormValues): z.input<typeof BenefitCreate> {
  const p = v.properties;
  const description = v.description.trim();
  switch (v.type) {
    case "custom":
      return { type: v.type, description, properties: { note: p.note === "" ? null : p.note } };
    case "discord":
      return {
        type: v.type,
        description,
        properties: { guild_id: p.guild_id || undefined, role_id: p.role_id, kick_member: p.kick_member },
      };
    case "downloadables":
      return {
        type: v.type,
        description,
        properties: { files: p.files.split(/\s+/).filter(Boolean), archived: p.archived },
      };
    case "github_repository":
      return {
        type: v.type,
        description,
        properties: {
          repository_owner: p.repository_owner,
          repository_name: p.repository_name,
          permission: p.permission as (typeof GITHUB_PERMISSIONS)[number],
        },
      };
    case "license_keys":
      return {
        type: v.type,
        description,
        properties: {
          prefix: p.prefix || null,
          expires: p.expires && { ttl: p.expires.ttl as number, timeframe: p.expires.timeframe },
          activations: p.activations && {
            limit: p.activations.limit as number,
            enable_customer_admin: p.activations.enable_customer_admin,
          },
          limit_usage: p.limit_usage ?? null,
        },
      };
    case "meter_credit":
      return {
        type: v.type,
        description,
        properties: { meter_id: p.meter_id as string, units: p.units as number, rollover: p.rollover },
      };
  }
}

const FIELDS: FieldMap = {
  type: "type",
  description: "description",
  "properties.*": "properties",
  "properties.files": "properties.files",
  "properties.archived": "properties.files",
};

const valuesOf = (b: Benefit | undefined): BenefitFormValues => {
  const p = (b?.properties ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof p[k] === "string" ? (p[k] as string) : "");
  return {
    type: b?.type ?? "license_keys",
    description: b?.description ?? "",
    properties: {
      ...emptyProperties,
      note: str("note"),
      guild_id: str("guild_id"),
      role_id: str("role_id"),
      kick_member: p.kick_member === true,
      files: Array.isArray(p.files) ? (p.files as string[]).join("\n") : "",
      archived: (p.archived ?? {}) as Record<string, boolean>,
      repository_owner: str("repository_owner"),
      repository_name: str("repository_name"),
      permission: (str("permission") || null) as FormProperties["permission"],
      prefix: str("prefix"),
      expires: (p.expires ?? null) as FormProperties["expires"],
      activations: (p.activations ?? null) as FormProperties["activations"],
      limit_usage: typeof p.limit_usage === "number" ? p.limit_usage : undefined,
      meter_id: str("meter_id") || null,
      units: typeof p.units === "number" ? p.units : undefined,
      rollover: p.rollover === true,
    },
  };
};

function SwitchField({
  control,
  name,
  label,
  mb,
}: {
  control: Control<BenefitFormValues>;
  name: FieldPath<BenefitFormValues>;
  label: string;
  mb?: number;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <Switch
          label={label}
          checked={field.value === true}
          onChange={(e) => field.onChange(e.currentTarget.checked)}
          mb={mb}
        />
      )}
    />
  );
}

/** Creates a benefit, or edits `benefit` (whose kind stays); `onDone` when saved or cancelled. */
export function BenefitForm({
  benefit,
  organizationId,
  onDone,
}: {
  benefit?: Benefit | undefined;
  organizationId: string;
  onDone: () => void;
}) {
  const meters = useQuery(listQuery<Meter>(organizationId, "meters", { limit: 100, is_archived: false }));
  const save = useSaveBenefit(organizationId);
  const schema = useMemo(
    () => checkedAgainst(BenefitFormShape, benefit ? BenefitUpdate : BenefitCreate, benefitBody, FIELDS),
    [benefit],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    setValue,
    getValues,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<BenefitFormValues>({ resolver: zodResolver(schema), defaultValues: valuesOf(benefit) });
  const [uploading, setUploading] = useState(false);
  const type = watch("type");
  const expires = watch("properties.expires");
  const activations = watch("properties.activations");
  const pe = errors.properties;

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) => save.mutateAsync({ id: benefit?.id, body: benefitBody(values) }),
    saved: benefit ? "Benefit saved." : "Benefit created.",
    onSaved: () => onDone(),
  });

  return (
    <EditorForm onSubmit={submit} errors={errors} refusalTitle="The benefit was not saved">
      <SelectField
        control={control}
        name="type"
        label="Kind"
        data={BENEFIT_TYPES.map((t) => ({ value: t, label: BENEFIT_LABELS[t] }))}
        disabled={Boolean(benefit)}
        onValueChange={() => setValue("properties", emptyProperties)}
      />
      <TextInput
        label="Description"
        required
        maxLength={42}
        {...register("description")}
        error={errors.description?.message}
        description="What the buyer sees, 3 to 42 characters."
      />
      {type === "custom" && (
        <Textarea
          label="Note"
          description="Shown to the buyer after purchase (Markdown)."
          {...register("properties.note")}
          error={pe?.note?.message}
          minRows={3}
        />
      )}
      {type === "discord" && (
        <>
          <TextInput
            label="Server (guild) id"
            required
            {...register("properties.guild_id")}
            error={pe?.guild_id?.message}
          />
          <TextInput
            label="Role id"
            required
            {...register("properties.role_id")}
            error={pe?.role_id?.message}
          />
          <SwitchField
            control={control}
            name="properties.kick_member"
            label="Remove the member from the server when the benefit is revoked"
          />
        </>
      )}
      {type === "downloadables" && (
        <Stack gap={6}>
          <Textarea
            label="Files"
            description="The files the buyer downloads: upload them here (their ids are listed, one a line)."
            {...register("properties.files")}
            error={pe?.files?.message}
          />
          <Group gap="xs">
            <FileButton
              multiple
              onChange={async (chosen) => {
                if (chosen.length === 0) return;
                setUploading(true);
                try {
                  const ids: string[] = [];
                  for (const file of chosen) ids.push(await uploadDownloadable(organizationId, file));
                  const current = String(getValues("properties.files") ?? "").trim();
                  setValue("properties.files", [current, ...ids].filter(Boolean).join("\n"), {
                    shouldDirty: true,
                  });
                  notifications.show({
                    color: "green",
                    message: `${ids.length === 1 ? "1 file" : `${ids.length} files`} uploaded.`,
                  });
                } catch (e) {
                  notifications.show({
                    color: "red",
                    message: e instanceof Error ? e.message : "The upload failed.",
                  });
                } finally {
                  setUploading(false);
                }
              }}
            >
              {(props) => (
                <Button variant="default" size="xs" loading={uploading} {...props}>
                  Upload files
                </Button>
              )}
            </FileButton>
          </Group>
        </Stack>
      )}
      {type === "github_repository" && (
        <Group grow align="flex-start">
          <TextInput
            label="Repository owner"
            required
            {...register("properties.repository_owner")}
            error={pe?.repository_owner?.message}
          />
          <TextInput
            label="Repository name"
            required
            {...register("properties.repository_name")}
            error={pe?.repository_name?.message}
          />
          <SelectField
            control={control}
            name="properties.permission"
            label="Permission"
            required
            data={[...GITHUB_PERMISSIONS]}
          />
        </Group>
      )}
      {type === "license_keys" && (
        <>
          <TextInput
            label="Key prefix"
            maxLength={32}
            {...register("properties.prefix")}
            error={pe?.prefix?.message}
          />
          <Group align="flex-end">
            <Switch
              label="Keys expire"
              checked={expires !== null}
              onChange={(e) =>
                setValue("properties.expires", e.currentTarget.checked ? { ttl: 1, timeframe: "year" } : null)
              }
              mb={8}
            />
            {expires && (
              <>
                <NumberField
                  control={control}
                  name="properties.expires.ttl"
                  label="After"
                  min={1}
                  max={1000}
                  w={100}
                />
                <SelectField
                  control={control}
                  name="properties.expires.timeframe"
                  aria-label="Timeframe"
                  data={[...LICENSE_KEY_TIMEFRAMES]}
                  w={110}
                />
              </>
            )}
          </Group>
          <Group align="flex-end">
            <Switch
              label="Limit activations"
              checked={activations !== null}
              onChange={(e) =>
                setValue(
                  "properties.activations",
                  e.currentTarget.checked ? { limit: 1, enable_customer_admin: false } : null,
                )
              }
              mb={8}
            />
            {activations && (
              <>
                <NumberField
                  control={control}
                  name="properties.activations.limit"
                  label="Activations"
                  min={1}
                  max={50}
                  w={120}
                />
                <SwitchField
                  control={control}
                  name="properties.activations.enable_customer_admin"
                  label="Customers may deactivate"
                  mb={8}
                />
              </>
            )}
          </Group>
          <NumberField
            control={control}
            name="properties.limit_usage"
            label="Usage limit"
            description="How many times a key may be used; empty: unlimited."
            min={1}
            w={200}
          />
        </>
      )}
      {type === "meter_credit" && (
        <>
          <SelectField
            control={control}
            name="properties.meter_id"
            label="Meter"
            required
            placeholder={meters.data?.items.length ? "Choose a meter" : "Create a meter first"}
            data={(meters.data?.items ?? []).map((m) => ({ value: m.id, label: m.name }))}
          />
          <NumberField
            control={control}
            name="properties.units"
            label="Units credited"
            required
            min={1}
            w={200}
          />
          <SwitchField
            control={control}
            name="properties.rollover"
            label="Unused units roll over to the next period"
          />
        </>
      )}
      <FormActions
        onCancel={onDone}
        submitting={isSubmitting}
        submitLabel={benefit ? "Save benefit" : "Create benefit"}
      />
    </EditorForm>
  );
}
