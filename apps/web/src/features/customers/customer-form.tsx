import { zodResolver } from "@hookform/resolvers/zod";
import { CustomerCreate, CustomerUpdate } from "@kassa/contracts/v1";
import { Group, Stack, Text, TextInput } from "@mantine/core";
import { useMemo } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import type { FieldMap } from "../../lib/server-errors";
import type { Address, Customer } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { EditorForm, FormActions, submitRow } from "../billing/form";
import { MetadataEditor, type MetadataRow, metadataOf, rowsOf } from "../billing/metadata-editor";
import { useSaveCustomer } from "./queries";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ADDRESS_LINES = ["line1", "line2", "postal_code", "city", "state"] as const;

/**
 * The customer as typed: the address as lines (all empty is no address). The form's own rules
 * say in its words what a person gets wrong first (an e-mail, a country of two letters); the
 * contract then checks the rest (a known country, a US state).
 */
const CustomerFormShape = z.object({
  email: z
    .string()
    .trim()
    .min(1, "Enter the customer's e-mail address.")
    .regex(EMAIL, "This is not an e-mail address."),
  name: z.string(),
  external_id: z.string(),
  address: z
    .object({
      line1: z.string(),
      line2: z.string(),
      postal_code: z.string(),
      city: z.string(),
      state: z.string(),
      country: z.string(),
    })
    // On the address itself: a rule of the whole form would not run while another field is wrong.
    .superRefine((a, ctx) => {
      const any = ADDRESS_LINES.some((k) => a[k].trim() !== "") || a.country.trim() !== "";
      if (any && !/^[A-Z]{2}$/.test(a.country.trim().toUpperCase()))
        ctx.addIssue({
          code: "custom",
          path: ["country"],
          message: "Enter the country as two letters (US, DE, FR).",
        });
    }),
  metadata: z.custom<MetadataRow[]>(),
});
export type CustomerFormValues = z.output<typeof CustomerFormShape>;

const orNull = (v: string) => (v.trim() === "" ? null : v.trim());

/**
 * The request body of the customer's form. The external id is set once: offered while it is
 * unset, never sent to change it.
 */
export function customerBody(v: CustomerFormValues, customer?: Customer): z.input<typeof CustomerCreate> {
  const a = v.address;
  const country = a.country.trim().toUpperCase();
  const any = ADDRESS_LINES.some((k) => a[k].trim() !== "") || country !== "";
  return {
    email: v.email.trim(),
    name: orNull(v.name),
    billing_address: any
      ? {
          line1: orNull(a.line1),
          line2: orNull(a.line2),
          postal_code: orNull(a.postal_code),
          city: orNull(a.city),
          state: orNull(a.state),
          country,
        }
      : null,
    metadata: metadataOf(v.metadata),
    ...(!customer?.external_id && v.external_id.trim() !== "" ? { external_id: v.external_id.trim() } : {}),
  };
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  email: "email",
  name: "name",
  external_id: "external_id",
  "billing_address.*": "address",
  metadata: "metadata",
};

const addressOf = (a: Address | null | undefined): CustomerFormValues["address"] => ({
  line1: a?.line1 ?? "",
  line2: a?.line2 ?? "",
  postal_code: a?.postal_code ?? "",
  city: a?.city ?? "",
  state: a?.state ?? "",
  country: a?.country ?? "",
});

/** Creates a customer, or edits `customer`; `onDone` with the saved customer, or nothing when cancelled. */
export function CustomerForm({
  customer,
  organizationId,
  onDone,
}: {
  customer?: Customer | undefined;
  organizationId: string;
  onDone: (saved?: Customer) => void;
}) {
  const save = useSaveCustomer(organizationId);
  const schema = useMemo(
    () =>
      checkedAgainst(
        CustomerFormShape,
        customer ? CustomerUpdate : CustomerCreate,
        (v) => customerBody(v, customer),
        FIELDS,
      ),
    [customer],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<CustomerFormValues>({
    resolver: zodResolver(schema),
    defaultValues: {
      email: customer?.email ?? "",
      name: customer?.name ?? "",
      external_id: customer?.external_id ?? "",
      address: addressOf(customer?.billing_address),
      metadata: rowsOf(customer?.metadata),
    },
  });
  const line = (k: keyof CustomerFormValues["address"]) => ({
    ...register(`address.${k}`),
    error: errors.address?.[k]?.message,
  });

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) => save.mutateAsync({ id: customer?.id, body: customerBody(values, customer) }),
    saved: customer ? "Customer saved." : "Customer created.",
    onSaved: (saved) => onDone(saved),
  });

  return (
    <EditorForm onSubmit={submit} errors={errors} refusalTitle="The customer was not saved">
      <TextInput label="E-mail" type="email" required {...register("email")} error={errors.email?.message} />
      <TextInput label="Name" {...register("name")} error={errors.name?.message} />
      <TextInput
        label="External id"
        description={
          customer?.external_id
            ? "Set once; it cannot change."
            : "Your own id for this customer (the user id in your app). It cannot change once set."
        }
        {...register("external_id")}
        disabled={Boolean(customer?.external_id)}
        error={errors.external_id?.message}
      />
      <Stack gap="xs" role="group" aria-label="Billing address">
        <Text size="sm" fw={500}>
          Billing address
        </Text>
        {errors.address?.message && (
          <Text c="red" size="sm">
            {errors.address.message}
          </Text>
        )}
        <TextInput label="Address line 1" {...line("line1")} />
        <TextInput label="Address line 2" {...line("line2")} />
        <Group grow align="flex-start">
          <TextInput label="Postal code" {...line("postal_code")} />
          <TextInput label="City" {...line("city")} />
        </Group>
        <Group grow align="flex-start">
          <TextInput label="State or region" {...line("state")} />
          <TextInput label="Country" placeholder="US" maxLength={2} {...line("country")} />
        </Group>
      </Stack>
      <Controller
        control={control}
        name="metadata"
        render={({ field }) => (
          <MetadataEditor rows={field.value} onChange={field.onChange} error={errors.metadata?.message} />
        )}
      />
      <FormActions
        onCancel={onDone}
        submitting={isSubmitting}
        submitLabel={customer ? "Save customer" : "Create customer"}
      />
    </EditorForm>
  );
}
