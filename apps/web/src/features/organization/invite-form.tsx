import { zodResolver } from "@hookform/resolvers/zod";
import {
  type InviteMemberValues,
  inviteMemberSchema,
  ORGANIZATION_ROLES,
  roleLabels,
} from "@kassa/contracts/organization";
import { Alert, Button, Group, Select, Stack, TextInput } from "@mantine/core";
import { IconSend } from "@tabler/icons-react";
import { Controller, useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import type { Team } from "../../lib/organization";
import { applyServerError } from "../../lib/server-errors";

const FIELD_BY_CODE = {
  INVALID_EMAIL: "email",
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: "email",
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: "email",
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: "role",
  TEAM_NOT_FOUND: "teamId",
} as const;

export interface InviteFormProps {
  teams: Team[];
  /** Only an owner may invite an owner. */
  viewerIsOwner: boolean;
  onSubmit: (values: InviteMemberValues) => Promise<ServerError | null>;
}

/** Invite by e-mail with a role and, optionally, a team; the mail carries the link to accept. */
export function InviteForm({ teams, viewerIsOwner, onSubmit }: InviteFormProps) {
  const {
    register,
    control,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<InviteMemberValues>({
    resolver: zodResolver(inviteMemberSchema),
    defaultValues: { email: "", role: "member", teamId: "" },
  });

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
    else reset({ email: "", role: values.role, teamId: values.teamId });
  });

  const roles = ORGANIZATION_ROLES.filter((r) => r !== "owner" || viewerIsOwner).map((r) => ({
    value: r,
    label: roleLabels[r],
  }));

  return (
    <form onSubmit={submit} noValidate aria-label="Invite a member">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not send the invitation">
            {errors.root.server.message}
          </Alert>
        )}
        <TextInput
          label="E-mail"
          type="email"
          autoComplete="off"
          required
          {...register("email")}
          error={errors.email?.message}
        />
        <Group grow align="flex-start" gap="md" preventGrowOverflow={false} wrap="wrap">
          <Controller
            control={control}
            name="role"
            render={({ field }) => (
              <Select
                label="Role"
                data={roles}
                value={field.value}
                onChange={(v) => field.onChange(v ?? "member")}
                allowDeselect={false}
                error={errors.role?.message}
                miw={160}
              />
            )}
          />
          <Controller
            control={control}
            name="teamId"
            render={({ field }) => (
              <Select
                label="Team"
                description={teams.length === 0 ? "No teams yet." : undefined}
                data={[
                  { value: "", label: "No team" },
                  ...teams.map((t) => ({ value: t.id, label: t.name })),
                ]}
                value={field.value}
                onChange={(v) => field.onChange(v ?? "")}
                allowDeselect={false}
                disabled={teams.length === 0}
                error={errors.teamId?.message}
                miw={160}
              />
            )}
          />
        </Group>
        <Group justify="flex-end">
          <Button type="submit" loading={isSubmitting} leftSection={<IconSend size={16} />}>
            Send invitation
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
