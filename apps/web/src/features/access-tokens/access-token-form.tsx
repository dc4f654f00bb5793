import { zodResolver } from "@hookform/resolvers/zod";
import { SCOPES } from "@kassa/contracts";
import { OrganizationAccessTokenCreate } from "@kassa/contracts/v1";
import { Button, Stack, TextInput } from "@mantine/core";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { DialogActions } from "../../components/dialog-actions";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import { checkedAgainst } from "../../lib/wire-form";
import { FormRefusal, MultiSelectField, SelectField } from "../billing/form";
import { type AccessTokenBody, useCreateAccessToken } from "./queries";

const EXPIRIES = [
  { value: "P7D", label: "7 days" },
  { value: "P30D", label: "30 days" },
  { value: "P90D", label: "90 days" },
  { value: "P365D", label: "1 year" },
  { value: "never", label: "Never" },
];

/** The token as chosen: its expiry one of `EXPIRIES`; a token without a scope could do nothing. */
const AccessTokenFormShape = z.object({
  comment: z.string(),
  scopes: z.array(z.string()).min(1, "Choose at least one scope."),
  expires: z.string(),
});
export type AccessTokenFormValues = z.output<typeof AccessTokenFormShape>;

export const accessTokenBody = (v: AccessTokenFormValues): AccessTokenBody => ({
  comment: v.comment.trim(),
  scopes: v.scopes as AccessTokenBody["scopes"],
  expires_in: v.expires === "never" ? null : v.expires,
});

const FIELDS: FieldMap = { comment: "comment", scopes: "scopes", expires_in: "expires" };
const schema = checkedAgainst(AccessTokenFormShape, OrganizationAccessTokenCreate, accessTokenBody, FIELDS);

/** Creates an access token; `onDone` gets its value, to show once. */
export function AccessTokenForm({
  organizationId,
  onDone,
}: {
  organizationId: string;
  onDone: (token: string) => void;
}) {
  const create = useCreateAccessToken(organizationId);
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<AccessTokenFormValues>({
    resolver: zodResolver(schema),
    defaultValues: { comment: "", scopes: [], expires: "P30D" },
  });

  const submit = handleSubmit(async (values) => {
    try {
      const created = await create.mutateAsync(accessTokenBody(values));
      onDone(created.token);
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, FIELDS);
    }
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <FormRefusal errors={errors} title="The token was not created" />
        <TextInput label="Name" required {...register("comment")} error={errors.comment?.message} />
        <MultiSelectField
          control={control}
          name="scopes"
          label="Scopes"
          required
          searchable
          data={[...SCOPES]}
        />
        <SelectField control={control} name="expires" label="Expires after" data={EXPIRIES} />
        <DialogActions>
          <Button type="submit" loading={isSubmitting}>
            Create token
          </Button>
        </DialogActions>
      </Stack>
    </form>
  );
}
