import { zodResolver } from "@hookform/resolvers/zod";
import { CheckoutLinkCreate, CheckoutLinkUpdate } from "@kassa/contracts/v1";
import { Button, Group, Stack, Switch, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import type { FieldMap } from "../../lib/server-errors";
import { type CheckoutLink, type Discount, listQuery } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { CopyUrl } from "../billing/commerce";
import { EditorForm, FormActions, MultiSelectField, SelectField, submitRow } from "../billing/form";
import { MetadataEditor, type MetadataRow, metadataOf, rowsOf } from "../billing/metadata-editor";
import { useProducts } from "../billing/pickers";
import { useSaveCheckoutLink } from "./queries";

/** The link as edited; the form's own rules say in its words what the contract also refuses. */
const CheckoutLinkFormShape = z.object({
  products: z.array(z.string()).min(1, "Choose at least one product."),
  label: z.string(),
  allow_discount_codes: z.boolean(),
  require_billing_address: z.boolean(),
  discount_id: z.string().nullable(),
  success_url: z
    .string()
    .refine((v) => !v.trim() || /^https?:\/\/\S+$/.test(v.trim()), "Enter a full address (https://…)."),
  metadata: z.custom<MetadataRow[]>(),
});
export type CheckoutLinkFormValues = z.output<typeof CheckoutLinkFormShape>;

/** The request body of a link's form (creation adds the payment processor). */
export function checkoutLinkBody(v: CheckoutLinkFormValues) {
  return {
    products: v.products,
    label: v.label.trim() || null,
    allow_discount_codes: v.allow_discount_codes,
    require_billing_address: v.require_billing_address,
    discount_id: v.discount_id,
    success_url: v.success_url.trim() || null,
    metadata: metadataOf(v.metadata),
  } satisfies z.input<typeof CheckoutLinkUpdate>;
}

const createBody = (v: CheckoutLinkFormValues): z.input<typeof CheckoutLinkCreate> => ({
  payment_processor: "stripe",
  ...checkoutLinkBody(v),
});

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  products: "products",
  label: "label",
  discount_id: "discount_id",
  success_url: "success_url",
  metadata: "metadata",
};

const valuesOf = (link: CheckoutLink | undefined): CheckoutLinkFormValues => ({
  products: link?.products.map((p) => String(p.id)) ?? [],
  label: link?.label ?? "",
  allow_discount_codes: link?.allow_discount_codes ?? true,
  require_billing_address: link?.require_billing_address ?? false,
  discount_id: link?.discount_id ?? null,
  success_url: link?.success_url ?? "",
  metadata: rowsOf(link?.metadata),
});

/** Creates a checkout link (then shows its address to share), or edits `link`. */
export function CheckoutLinkForm({
  link,
  organizationId,
  onDone,
}: {
  link?: CheckoutLink | undefined;
  organizationId: string;
  onDone: () => void;
}) {
  const products = useProducts(organizationId);
  const discounts = useQuery(listQuery<Discount>(organizationId, "discounts", { limit: 100 }));
  const save = useSaveCheckoutLink(organizationId);
  const [created, setCreated] = useState<CheckoutLink | null>(null);
  const schema = useMemo(
    () =>
      link
        ? checkedAgainst(CheckoutLinkFormShape, CheckoutLinkUpdate, checkoutLinkBody, FIELDS)
        : checkedAgainst(CheckoutLinkFormShape, CheckoutLinkCreate, createBody, FIELDS),
    [link],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<CheckoutLinkFormValues>({ resolver: zodResolver(schema), defaultValues: valuesOf(link) });
  const chosen = watch("products");

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) =>
      save.mutateAsync(link ? { id: link.id, body: checkoutLinkBody(values) } : { body: createBody(values) }),
    saved: link ? "Checkout link saved." : "Checkout link created.",
    onSaved: (saved) => (link ? onDone() : setCreated(saved)),
  });

  if (created)
    return (
      <Stack gap="md">
        <Text size="sm">Share this address; every visit opens a new checkout.</Text>
        <CopyUrl url={created.url} label="Checkout link URL" />
        <Group justify="flex-end">
          <Button onClick={onDone}>Done</Button>
        </Group>
      </Stack>
    );

  return (
    <EditorForm onSubmit={submit} errors={errors} refusalTitle="The checkout link was not saved">
      {link && <CopyUrl url={link.url} label="Checkout link URL" />}
      <MultiSelectField
        control={control}
        name="products"
        label="Products"
        required
        description="With several, the buyer chooses one on the checkout page."
        data={(products.data?.items ?? [])
          .filter((p) => !p.is_archived || chosen.includes(p.id))
          .map((p) => ({ value: p.id, label: p.name }))}
        searchable
      />
      <TextInput
        label="Label"
        description="For you, to tell links apart (the buyer does not see it)."
        {...register("label")}
        error={errors.label?.message}
      />
      <Controller
        control={control}
        name="allow_discount_codes"
        render={({ field }) => (
          <Switch
            label="Allow discount codes"
            checked={field.value}
            onChange={(e) => field.onChange(e.currentTarget.checked)}
          />
        )}
      />
      <Controller
        control={control}
        name="require_billing_address"
        render={({ field }) => (
          <Switch
            label="Require a billing address"
            checked={field.value}
            onChange={(e) => field.onChange(e.currentTarget.checked)}
          />
        )}
      />
      <SelectField
        control={control}
        name="discount_id"
        label="Discount applied"
        placeholder="None"
        clearable
        allowDeselect
        data={(discounts.data?.items ?? []).map((d) => ({
          value: d.id,
          label: d.code ? `${d.name} (${d.code})` : d.name,
        }))}
      />
      <TextInput
        label="Success URL"
        description="Where buyers land after paying; empty shows Kassa's confirmation page."
        placeholder="https://example.com/thanks"
        {...register("success_url")}
        error={errors.success_url?.message}
      />
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
        submitLabel={link ? "Save link" : "Create link"}
      />
    </EditorForm>
  );
}
