import { zodResolver } from "@hookform/resolvers/zod";
import {
  type OrganizationSettingsValues,
  organizationSettingsSchema,
  rowsFromMetadata,
} from "@kassa/contracts/organization";
import { ActionIcon, Alert, Button, Fieldset, Group, Stack, Text, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { useFieldArray, useForm } from "react-hook-form";
import { OrganizationAvatar } from "../../components/organization-avatar";
import type { ServerError } from "../../lib/auth-client";
import type { Organization } from "../../lib/organization";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  ORGANIZATION_ALREADY_EXISTS: "slug",
  ORGANIZATION_SLUG_ALREADY_TAKEN: "slug",
  SLUG_IS_TAKEN: "slug",
} as const;

export interface OrganizationSettingsFormProps {
  organization: Organization;
  /** Whether the viewer may change the settings (organization update); else the form is read-only. */
  canUpdate: boolean;
  onSubmit: (values: OrganizationSettingsValues) => Promise<ServerError | null>;
}

/** Name, slug, logo (an image address, previewed) and metadata as key/value rows. */
export function OrganizationSettingsForm({
  organization,
  canUpdate,
  onSubmit,
}: OrganizationSettingsFormProps) {
  const {
    register,
    handleSubmit,
    setError,
    control,
    watch,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<OrganizationSettingsValues>({
    resolver: zodResolver(organizationSettingsSchema),
    defaultValues: {
      name: organization.name,
      slug: organization.slug,
      logo: organization.logo ?? "",
      metadata: rowsFromMetadata(organization.metadata),
    },
  });
  const rows = useFieldArray({ control, name: "metadata" });
  const logo = watch("logo");
  const name = watch("name");

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else reset(values);
  });

  const readOnly = !canUpdate;
  return (
    <form onSubmit={submit} noValidate aria-label="Organization settings">
      <Stack gap="md">
        {readOnly && (
          <Alert color="gray" variant="light">
            Only owners and admins can change these settings.
          </Alert>
        )}
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not save the settings">
            {errors.root.server.message}
          </Alert>
        )}
        <TextInput
          label="Name"
          required
          readOnly={readOnly}
          {...register("name")}
          error={errors.name?.message}
        />
        <TextInput
          label="Slug"
          description="Changing it changes the address of every dashboard page of this organization."
          required
          readOnly={readOnly}
          autoCapitalize="none"
          spellCheck={false}
          {...register("slug")}
          error={errors.slug?.message}
        />
        <Group align="flex-start" gap="md" wrap="nowrap">
          <OrganizationAvatar
            src={logo && !errors.logo ? logo : null}
            name={name}
            size={56}
            radius="md"
            alt="Logo preview"
          />
          <TextInput
            style={{ flex: 1 }}
            label="Logo"
            description="The address of an image (https://...). Leave empty for initials."
            placeholder="https://example.com/logo.png"
            readOnly={readOnly}
            type="url"
            {...register("logo")}
            error={errors.logo?.message}
          />
        </Group>
        <Fieldset legend="Metadata" variant="unstyled">
          <Stack gap="xs">
            <Text size="xs" c="dimmed">
              Your own key/value pairs, kept with the organization.
            </Text>
            {rows.fields.length === 0 && (
              <Text size="sm" c="dimmed">
                No metadata.
              </Text>
            )}
            {rows.fields.map((row, i) => (
              <Group key={row.id} align="flex-start" gap="xs" wrap="nowrap">
                <TextInput
                  style={{ flex: 1 }}
                  aria-label={`Key ${i + 1}`}
                  placeholder="key"
                  readOnly={readOnly}
                  {...register(`metadata.${i}.key`)}
                  error={errors.metadata?.[i]?.key?.message}
                />
                <TextInput
                  style={{ flex: 2 }}
                  aria-label={`Value ${i + 1}`}
                  placeholder="value"
                  readOnly={readOnly}
                  {...register(`metadata.${i}.value`)}
                  error={errors.metadata?.[i]?.value?.message}
                />
                {!readOnly && (
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    size="lg"
                    aria-label={`Remove metadata row ${i + 1}`}
                    onClick={() => rows.remove(i)}
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                )}
              </Group>
            ))}
            {!readOnly && (
              <Group>
                <Button
                  variant="subtle"
                  size="xs"
                  leftSection={<IconPlus size={14} />}
                  onClick={() => rows.append({ key: "", value: "" })}
                >
                  Add a field
                </Button>
              </Group>
            )}
          </Stack>
        </Fieldset>
        {!readOnly && (
          <Group justify="flex-end">
            <Button type="submit" loading={isSubmitting} disabled={!isDirty}>
              Save changes
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
