import { zodResolver } from "@hookform/resolvers/zod";
import { type DeleteOrganizationValues, deleteOrganizationSchema } from "@kassa/contracts/organization";
import { Alert, Button, Code, Group, Modal, Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconTrash } from "@tabler/icons-react";
import { useMemo } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import type { Organization } from "../../lib/organization";
import { applyServerError } from "../../lib/server-errors";

/** The owner's "delete this organization", confirmed by typing its slug. */
export function DeleteOrganizationSection({
  organization,
  onDelete,
}: {
  organization: Organization;
  onDelete: () => Promise<ServerError | null>;
}) {
  const [opened, modal] = useDisclosure(false);
  const schema = useMemo(() => deleteOrganizationSchema(organization.slug), [organization.slug]);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<DeleteOrganizationValues>({ resolver: zodResolver(schema), defaultValues: { confirm: "" } });
  const typed = watch("confirm");

  const submit = handleSubmit(async () => {
    const error = await onDelete();
    if (error) applyServerError(error, setError, {});
  });

  return (
    <Paper withBorder radius="md" p="md" style={{ borderColor: "var(--mantine-color-red-6)" }}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          Delete this organization
        </Title>
        <Text size="sm" c="dimmed">
          Its members, teams and invitations go with it. This cannot be undone.
        </Text>
        <Group>
          <Button color="red" variant="light" leftSection={<IconTrash size={16} />} onClick={modal.open}>
            Delete organization
          </Button>
        </Group>
      </Stack>
      <Modal
        opened={opened}
        onClose={() => {
          modal.close();
          reset();
        }}
        title={`Delete ${organization.name}?`}
        centered
      >
        <form onSubmit={submit} noValidate aria-label="Delete the organization">
          <Stack gap="md">
            {errors.root?.server && (
              <Alert color="red" role="alert" title="Could not delete the organization">
                {errors.root.server.message}
              </Alert>
            )}
            <Text size="sm">
              This deletes the organization, its members, teams and invitations for good. Type{" "}
              <Code>{organization.slug}</Code> to confirm.
            </Text>
            <TextInput
              label="Slug of the organization"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              data-autofocus
              {...register("confirm")}
              error={errors.confirm?.message}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={modal.close}>
                Cancel
              </Button>
              <Button
                type="submit"
                color="red"
                loading={isSubmitting}
                disabled={typed.trim() !== organization.slug}
              >
                Delete for good
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Paper>
  );
}
