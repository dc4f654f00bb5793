import { Alert, Button, Group, Modal, NumberInput, Select, Stack, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconExternalLink, IconPlus, IconShoppingCart } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { useState } from "react";
import { AnchorLink } from "../../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import {
  AddressBlock,
  CHECKOUT_STATUS_LABELS,
  CopyUrl,
  Details,
  StatusBadge,
} from "../../../features/billing/commerce";
import { formatDate, formatMoney, fractionDigits, toMinor } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import { CustomerPicker, useProducts } from "../../../features/billing/pickers";
import {
  CHECKOUT_STATUSES,
  type Checkout,
  type Discount,
  getQuery,
  invalidate,
  listQuery,
  type Price,
  V1Error,
  v1,
} from "../../../lib/v1";
import { priceSummary } from "./products";

/** `/dashboard/{slug}/checkouts`: checkout sessions, open or done, filtered by status from the address. */
export function CheckoutsPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { search, set, page, limit } = useListParams();
  const status = search.status ?? null;
  const checkouts = useQuery(
    listQuery<Checkout>(organizationId, "checkouts", { page, limit, sorting: search.sorting, status }),
  );
  const [creating, setCreating] = useState(false);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Checkouts"
        description="Payment pages opened for a product: each one's status, amount and customer."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New checkout
            </Button>
          )
        }
      />
      <Group gap="md" align="flex-end">
        <Select
          label="Status"
          placeholder="Every status"
          clearable
          data={CHECKOUT_STATUSES.map((s) => ({ value: s, label: CHECKOUT_STATUS_LABELS[s] }))}
          value={status}
          onChange={(v) => set({ status: v ?? undefined })}
          w={200}
        />
      </Group>
      <ListView
        query={checkouts}
        label="checkouts"
        caption="Checkouts"
        empty={{
          icon: IconShoppingCart,
          title: status ? "No checkout matches" : "No checkouts yet",
          children: status
            ? "Change the filter to see more."
            : "A checkout opens when a buyer follows a checkout link, or when you create one here or through the API.",
        }}
        columns={[
          {
            label: "Checkout",
            sort: "created_at",
            render: (c) => (
              <AnchorLink to="/dashboard/$slug/checkouts/$checkoutId" params={{ slug, checkoutId: c.id }}>
                {formatDate(c.created_at)}
              </AnchorLink>
            ),
          },
          { label: "Product", render: (c) => (c.product ? String(c.product.name) : "—") },
          { label: "Customer", render: (c) => c.customer_email ?? "—" },
          { label: "Total", render: (c) => formatMoney(c.total_amount, c.currency) },
          {
            label: "Status",
            sort: "status",
            render: (c) => <StatusBadge status={c.status} labels={CHECKOUT_STATUS_LABELS} />,
          },
          { label: "Expires", sort: "expires_at", render: (c) => formatDate(c.expires_at) },
        ]}
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New checkout" size="lg">
        {creating && <CheckoutForm organizationId={organizationId} onDone={() => setCreating(false)} />}
      </Modal>
    </Stack>
  );
}

/** `/dashboard/{slug}/checkouts/{id}`: one checkout, its amounts, customer and page. */
export function CheckoutPage() {
  const { organizationId, slug } = useBilling();
  const { checkoutId = "" } = useParams({ strict: false });
  const checkout = useQuery(getQuery<Checkout>(organizationId, "checkouts", checkoutId));
  if (checkout.isPending) return <LoadingState label="Loading the checkout" />;
  if (checkout.isError) return <ErrorState error={checkout.error} onRetry={() => void checkout.refetch()} />;
  const c = checkout.data;
  const money = (n: number) => formatMoney(n, c.currency);
  const open = c.status === "open";

  return (
    <Stack gap="lg" maw={900}>
      <AnchorLink to="/dashboard/$slug/checkouts" params={{ slug }} size="sm">
        ← Checkouts
      </AnchorLink>
      <PageHeader
        title={`Checkout for ${c.product?.name ?? "a product"}`}
        description={
          <Group gap="xs" component="span">
            <StatusBadge status={c.status} labels={CHECKOUT_STATUS_LABELS} />
            <span>
              Created {formatDate(c.created_at)}, {open ? "expires" : "expiry"} {formatDate(c.expires_at)}
            </span>
          </Group>
        }
        actions={
          open && (
            <Button
              component="a"
              href={c.url}
              target="_blank"
              rel="noreferrer"
              variant="light"
              rightSection={<IconExternalLink size={16} />}
            >
              Open the checkout page
            </Button>
          )
        }
      />
      {open && <CopyUrl url={c.url} label="Checkout URL" />}
      <Details
        label="Checkout details"
        rows={[
          ["Product", c.product ? String(c.product.name) : "—"],
          // The document gives the embedded price as an open object; the server answers a ProductPrice.
          ["Price", c.product_price ? priceSummary(c.product_price as Price) : "—"],
          ["Amount", money(c.amount)],
          [
            "Discount",
            c.discount_amount > 0
              ? `−${money(c.discount_amount)}${c.discount ? ` (${c.discount.code ?? c.discount.name})` : ""}`
              : "—",
          ],
          ["Tax", c.tax_amount === null ? "Not computed yet" : money(c.tax_amount)],
          ["Total", money(c.total_amount)],
          [
            "Customer",
            c.customer_id ? (
              <AnchorLink
                key="c"
                to="/dashboard/$slug/customers/$customerId"
                params={{ slug, customerId: c.customer_id }}
              >
                {c.customer_name || c.customer_email || "The customer"}
              </AnchorLink>
            ) : (
              [c.customer_name, c.customer_email].filter(Boolean).join(", ") || "Not given yet"
            ),
          ],
          ["Billing address", <AddressBlock key="a" address={c.customer_billing_address} />],
          ["Success URL", c.success_url || "—"],
          ["Discount codes", c.allow_discount_codes ? "Allowed" : "Not allowed"],
        ]}
      />
    </Stack>
  );
}

/** Creates a checkout for one product and shows its URL to send to the buyer. */
function CheckoutForm({ organizationId, onDone }: { organizationId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const products = useProducts(organizationId);
  const discounts = useQuery(listQuery<Discount>(organizationId, "discounts", { limit: 100 }));
  const [productId, setProductId] = useState<string | null>(null);
  const [customerId, setCustomerId] = useState<string | null>(null);
  const [discountId, setDiscountId] = useState<string | null>(null);
  const [amount, setAmount] = useState<number | undefined>(undefined);
  const [successUrl, setSuccessUrl] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [created, setCreated] = useState<Checkout | null>(null);

  const product = products.data?.items.find((p) => p.id === productId);
  const price = product?.prices.find((p) => !p.is_archived && p.amount_type !== "metered_unit");

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

  const submit = async () => {
    setRefusal(null);
    const invalid: Record<string, string> = {};
    if (!productId) invalid.products = "Choose the product to sell.";
    if (successUrl.trim() && !/^https?:\/\/\S+$/.test(successUrl.trim()))
      invalid.success_url = "Enter a full address (https://…).";
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    setSaving(true);
    try {
      const checkout = await v1<Checkout>(organizationId, "/checkouts/", {
        method: "POST",
        body: {
          products: [productId],
          customer_id: customerId,
          discount_id: discountId,
          success_url: successUrl.trim() || null,
          ...(price?.amount_type === "custom" && amount !== undefined
            ? { amount: toMinor(amount, price.price_currency) }
            : {}),
        },
      });
      await invalidate(queryClient, organizationId, "checkouts");
      notifications.show({ color: "green", message: "Checkout created." });
      setCreated(checkout);
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) {
        const byField = e.fieldErrors();
        setErrors({ ...byField, ...(byField["products.0"] ? { products: byField["products.0"] } : {}) });
      }
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The checkout was not created">
          {refusal}
        </Alert>
      )}
      <Select
        label="Product"
        required
        searchable
        placeholder="Choose a product"
        data={(products.data?.items ?? [])
          .filter((p) => !p.is_archived)
          .map((p) => ({ value: p.id, label: p.name }))}
        value={productId}
        onChange={setProductId}
        error={errors.products}
        description={price ? `Price: ${priceSummary(price)}` : undefined}
      />
      {price?.amount_type === "custom" && (
        <NumberInput
          label={`Amount (${price.price_currency.toUpperCase()})`}
          description="Optional: the amount the buyer starts with; they may change it within the price's bounds."
          min={0}
          decimalScale={fractionDigits(price.price_currency)}
          value={amount ?? ""}
          onChange={(v) => setAmount(v === "" ? undefined : Number(v))}
          error={errors.amount}
          w={220}
        />
      )}
      <CustomerPicker
        organizationId={organizationId}
        value={customerId}
        onChange={setCustomerId}
        label="Customer"
        placeholder="Anyone (the buyer enters their e-mail)"
        error={errors.customer_id}
      />
      <Select
        label="Discount"
        placeholder="None"
        clearable
        data={(discounts.data?.items ?? []).map((d) => ({
          value: d.id,
          label: d.code ? `${d.name} (${d.code})` : d.name,
        }))}
        value={discountId}
        onChange={setDiscountId}
        error={errors.discount_id}
      />
      <TextInput
        label="Success URL"
        description="Where the buyer lands after paying; empty shows Kassa's confirmation page."
        placeholder="https://example.com/thanks"
        value={successUrl}
        onChange={(e) => setSuccessUrl(e.currentTarget.value)}
        error={errors.success_url}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button loading={saving} onClick={() => void submit()}>
          Create checkout
        </Button>
      </Group>
    </Stack>
  );
}
