import { zodResolver } from "@hookform/resolvers/zod";
import { DiscountCreate, DiscountUpdate } from "@kassa/contracts/v1";
import { Group, SegmentedControl, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import type { FieldMap } from "../../lib/server-errors";
import { type Discount, listQuery, type Product } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import {
  EditorForm,
  FormActions,
  MultiSelectField,
  NumberField,
  SelectField,
  submitRow,
} from "../billing/form";
import { fractionDigits, toMajor, toMinor } from "../billing/format";
import { useSaveDiscount } from "./queries";

const CURRENCIES = ["usd", "eur", "gbp", "cad", "aud", "chf", "sek", "jpy"];

/** An ISO instant as a `datetime-local` value in the viewer's zone, and back. */
const toLocalInput = (iso: string | null | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

/** The discount as typed: an amount in major units, a percentage, local date-times. */
const DiscountFormShape = z.object({
  name: z.string(),
  code: z.string(),
  type: z.enum(["fixed", "percentage"]),
  currency: z.string(),
  amount: z.number().optional(),
  percent: z.number().optional(),
  duration: z.enum(["once", "forever", "repeating"]),
  months: z.number().optional(),
  starts_at: z.string(),
  ends_at: z.string(),
  max_redemptions: z.number().optional(),
  products: z.array(z.string()),
});
export type DiscountFormValues = z.output<typeof DiscountFormShape>;

/** The request body of a discount's form (creation and update take the same fields). */
export function discountBody(v: DiscountFormValues): z.input<typeof DiscountCreate> {
  return {
    name: v.name.trim(),
    code: v.code.trim() || null,
    type: v.type,
    ...(v.type === "fixed"
      ? { amount: toMinor(v.amount, v.currency) ?? null, currency: v.currency }
      : { basis_points: v.percent === undefined ? null : Math.round(v.percent * 100) }),
    duration: v.duration,
    duration_in_months: v.duration === "repeating" ? (v.months ?? null) : null,
    starts_at: fromLocalInput(v.starts_at),
    ends_at: fromLocalInput(v.ends_at),
    max_redemptions: v.max_redemptions ?? null,
    products: v.products,
  };
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  name: "name",
  code: "code",
  type: "type",
  amount: "amount",
  currency: "currency",
  basis_points: "percent",
  duration: "duration",
  duration_in_months: "months",
  starts_at: "starts_at",
  ends_at: "ends_at",
  max_redemptions: "max_redemptions",
  products: "products",
};

const valuesOf = (d: Discount | undefined): DiscountFormValues => ({
  name: d?.name ?? "",
  code: d?.code ?? "",
  type: d?.type ?? "percentage",
  currency: d?.currency ?? "usd",
  amount: toMajor(d?.amount, d?.currency ?? "usd"),
  percent: d?.basis_points ? d.basis_points / 100 : undefined,
  duration: d?.duration ?? "once",
  months: d?.duration_in_months ?? undefined,
  starts_at: toLocalInput(d?.starts_at),
  ends_at: toLocalInput(d?.ends_at),
  max_redemptions: d?.max_redemptions ?? undefined,
  products: d?.products.map((p) => String(p.id)) ?? [],
});

/** Creates a discount, or edits `discount`; `onDone` when saved or cancelled. */
export function DiscountForm({
  discount,
  organizationId,
  onDone,
}: {
  discount?: Discount | undefined;
  organizationId: string;
  onDone: () => void;
}) {
  const products = useQuery(
    listQuery<Product>(organizationId, "products", { limit: 100, is_archived: false }),
  );
  const save = useSaveDiscount(organizationId);
  const schema = useMemo(
    () => checkedAgainst(DiscountFormShape, discount ? DiscountUpdate : DiscountCreate, discountBody, FIELDS),
    [discount],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<DiscountFormValues>({ resolver: zodResolver(schema), defaultValues: valuesOf(discount) });
  const type = watch("type");
  const currency = watch("currency");
  const duration = watch("duration");

  const submit = submitRow({ handleSubmit, setError }, FIELDS, {
    save: (values) => save.mutateAsync({ id: discount?.id, body: discountBody(values) }),
    saved: discount ? "Discount saved." : "Discount created.",
    onSaved: () => onDone(),
  });

  return (
    <EditorForm onSubmit={submit} errors={errors} refusalTitle="The discount was not saved">
      <TextInput label="Name" required {...register("name")} error={errors.name?.message} />
      <TextInput
        label="Code"
        description="Letters, digits, dashes and underscores; empty for a discount applied by link."
        {...register("code")}
        error={errors.code?.message}
      />
      <Controller
        control={control}
        name="type"
        render={({ field }) => (
          <SegmentedControl
            aria-label="Kind of discount"
            value={field.value}
            onChange={(v) => field.onChange(v === "fixed" ? "fixed" : "percentage")}
            data={[
              { value: "percentage", label: "Percentage" },
              { value: "fixed", label: "Fixed amount" },
            ]}
            w="fit-content"
          />
        )}
      />
      {type === "percentage" ? (
        <NumberField
          control={control}
          name="percent"
          label="Percent off"
          required
          min={0.01}
          max={100}
          decimalScale={2}
          w={160}
        />
      ) : (
        <Group align="flex-start">
          <NumberField
            control={control}
            name="amount"
            label={`Amount off (${currency.toUpperCase()})`}
            required
            min={0}
            decimalScale={fractionDigits(currency)}
            w={180}
          />
          <SelectField
            control={control}
            name="currency"
            label="Currency"
            data={CURRENCIES.map((c) => ({ value: c, label: c.toUpperCase() }))}
            w={120}
          />
        </Group>
      )}
      <Group align="flex-start">
        <SelectField
          control={control}
          name="duration"
          label="Duration"
          data={[
            { value: "once", label: "Once" },
            { value: "repeating", label: "Several months" },
            { value: "forever", label: "Forever" },
          ]}
          w={200}
        />
        {duration === "repeating" && (
          <NumberField control={control} name="months" label="Months" required min={1} max={999} w={120} />
        )}
      </Group>
      <Group grow align="flex-start">
        <TextInput
          type="datetime-local"
          label="Starts"
          {...register("starts_at")}
          error={errors.starts_at?.message}
        />
        <TextInput
          type="datetime-local"
          label="Ends"
          {...register("ends_at")}
          error={errors.ends_at?.message}
        />
      </Group>
      <NumberField
        control={control}
        name="max_redemptions"
        label="Maximum redemptions"
        description="Empty: unlimited."
        min={1}
        w={220}
      />
      <MultiSelectField
        control={control}
        name="products"
        label="Only for these products"
        placeholder="Every product"
        data={(products.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))}
        searchable
      />
      {discount && (
        <Text size="sm" c="dimmed">
          {discount.redemptions_count === 1
            ? "Redeemed once."
            : `Redeemed ${discount.redemptions_count} times.`}
        </Text>
      )}
      <FormActions
        onCancel={onDone}
        submitting={isSubmitting}
        submitLabel={discount ? "Save discount" : "Create discount"}
      />
    </EditorForm>
  );
}
