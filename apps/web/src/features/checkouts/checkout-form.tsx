import { zodResolver } from "@hookform/resolvers/zod";
import { CheckoutCreate } from "@kassa/contracts/v1";
import { Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import { type Checkout, type Discount, listQuery, type Price, type Product } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { amountProblem } from "../billing/amounts";
import { CopyUrl } from "../billing/commerce";
import { FormRefusal, NumberField, SelectField } from "../billing/form";
import { formatDate, fractionDigits, toMinor } from "../billing/format";
import { CustomerPicker, useProducts } from "../billing/pickers";
import { priceSummary } from "../products/price-summary";
import { useCreateCheckout } from "./queries";

/** The checkout as chosen: a product, optionally a customer, a discount, a starting amount. */
const CheckoutFormShape = z.object({
  product_id: z.string().nullable(),
  customer_id: z.string().nullable(),
  discount_id: z.string().nullable(),
  amount: z.number().optional(),
  success_url: z
    .string()
    .refine((v) => !v.trim() || /^https?:\/\/\S+$/.test(v.trim()), "Enter a full address (https://…)."),
});
export type CheckoutFormValues = z.output<typeof CheckoutFormShape>;

/** The request body; a starting amount only for a pay-what-you-want price. */
export function checkoutBody(
  v: CheckoutFormValues,
  price: Price | undefined,
): z.input<typeof CheckoutCreate> {
  return {
    products: v.product_id ? [v.product_id] : [],
    customer_id: v.customer_id,
    discount_id: v.discount_id,
    success_url: v.success_url.trim() || null,
    ...(price?.amount_type === "custom" && v.amount !== undefined
      ? { amount: toMinor(v.amount, price.price_currency) ?? null }
      : {}),
  };
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  products: "product_id",
  product_id: "product_id",
  customer_id: "customer_id",
  discount_id: "discount_id",
  amount: "amount",
  success_url: "success_url",
};

/** The product's price a checkout sells (its metered prices are billed later). */
const staticPrice = (items: Product[] | undefined, productId: string | null) =>
  items
    ?.find((p) => p.id === productId)
    ?.prices.find((p) => !p.is_archived && p.amount_type !== "metered_unit");

/** Creates a checkout for one product and shows its URL to send to the buyer. */
export function CheckoutForm({ organizationId, onDone }: { organizationId: string; onDone: () => void }) {
  const products = useProducts(organizationId);
  const discounts = useQuery(listQuery<Discount>(organizationId, "discounts", { limit: 100 }));
  const create = useCreateCheckout(organizationId);
  const [created, setCreated] = useState<Checkout | null>(null);
  const items = products.data?.items;
  const priceOf = (productId: string | null) => staticPrice(items, productId);
  const schema = useMemo(
    () =>
      checkedAgainst(
        CheckoutFormShape.superRefine((v, ctx) => {
          if (v.product_id === null)
            ctx.addIssue({ code: "custom", path: ["product_id"], message: "Choose the product to sell." });
          const price = staticPrice(items, v.product_id);
          const problem = price?.amount_type === "custom" && amountProblem(v.amount, price.price_currency);
          if (problem) ctx.addIssue({ code: "custom", path: ["amount"], message: problem });
        }),
        CheckoutCreate,
        (v) => checkoutBody(v, staticPrice(items, v.product_id)),
        FIELDS,
      ),
    [items],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<CheckoutFormValues>({
    resolver: zodResolver(schema),
    defaultValues: {
      product_id: null,
      customer_id: null,
      discount_id: null,
      amount: undefined,
      success_url: "",
    },
  });
  const price = priceOf(watch("product_id"));

  const submit = handleSubmit(async (values) => {
    try {
      const checkout = await create.mutateAsync(checkoutBody(values, priceOf(values.product_id)));
      notifications.show({ color: "green", message: "Checkout created." });
      setCreated(checkout);
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, FIELDS);
    }
  });

  if (created)
    return (
      <Stack gap="md">
        <Text size="sm">
          Send this address to the buyer. It stays valid until {formatDate(created.expires_at)}.
        </Text>
        <CopyUrl url={created.url} label="Checkout URL" />
        <Group justify="flex-end">
          <Button component="a" href={created.url} target="_blank" rel="noreferrer" variant="default">
            Open it
          </Button>
          <Button onClick={onDone}>Done</Button>
        </Group>
      </Stack>
    );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <FormRefusal errors={errors} title="The checkout was not created" />
        <SelectField
          control={control}
          name="product_id"
          label="Product"
          required
          searchable
          placeholder="Choose a product"
          data={(products.data?.items ?? [])
            .filter((p) => !p.is_archived)
            .map((p) => ({ value: p.id, label: p.name }))}
          description={price ? `Price: ${priceSummary(price)}` : undefined}
        />
        {price?.amount_type === "custom" && (
          <NumberField
            control={control}
            name="amount"
            label={`Amount (${price.price_currency.toUpperCase()})`}
            description="Optional: the amount the buyer starts with; they may change it within the price's bounds."
            min={0}
            clampBehavior="none"
            decimalScale={fractionDigits(price.price_currency)}
            w={220}
          />
        )}
        <Controller
          control={control}
          name="customer_id"
          render={({ field, fieldState }) => (
            <CustomerPicker
              organizationId={organizationId}
              value={field.value}
              onChange={field.onChange}
              label="Customer"
              placeholder="Anyone (the buyer enters their e-mail)"
              {...(fieldState.error?.message ? { error: fieldState.error.message } : {})}
            />
          )}
        />
        <SelectField
          control={control}
          name="discount_id"
          label="Discount"
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
          description="Where the buyer lands after paying; empty shows Kassa's confirmation page."
          placeholder="https://example.com/thanks"
          {...register("success_url")}
          error={errors.success_url?.message}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={isSubmitting}>
            Create checkout
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
