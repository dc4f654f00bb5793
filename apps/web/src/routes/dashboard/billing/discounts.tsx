import {
  Alert,
  Anchor,
  Button,
  Group,
  MultiSelect,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconDiscount, IconPlus } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { DialogActions } from "../../../components/dialog-actions";
import { PageHeader } from "../../../components/states";
import { formatDate, formatMoney, fractionDigits, toMajor, toMinor } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import {
  DeleteRowDialog,
  type Editing,
  EditorModal,
  RowDeleteButton,
} from "../../../features/billing/row-actions";
import { type Discount, invalidate, listQuery, type Product, V1Error, v1 } from "../../../lib/v1";

export const discountAmount = (d: Discount) =>
  d.type === "percentage"
    ? `${(d.basis_points ?? 0) / 100}% off`
    : `${formatMoney(d.amount ?? 0, d.currency ?? "usd")} off`;

export const discountDuration = (d: Pick<Discount, "duration" | "duration_in_months">) =>
  d.duration === "once" ? "Once" : d.duration === "forever" ? "Forever" : `${d.duration_in_months} months`;

/** An ISO instant as a `datetime-local` value in the viewer's zone, and back. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

/** `/dashboard/{slug}/discounts`: codes and automatic discounts on products. */
export function DiscountsPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, page, limit } = useListParams();
  const discounts = useQuery(
    listQuery<Discount>(organizationId, "discounts", {
      page,
      limit,
      sorting: search.sorting,
      query: search.query,
    }),
  );
  const [editing, setEditing] = useState<Editing<Discount>>(null);
  const [deleting, setDeleting] = useState<Discount | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Discounts"
        description="Fixed or percentage reductions, once, for some months or forever, with an optional code."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New discount
            </Button>
          )
        }
      />
      <ListView
        query={discounts}
        label="discounts"
        caption="Discounts"
        empty={{
          icon: IconDiscount,
          title: "No discounts yet",
          children: canWrite
            ? "Create a discount and share its code, or limit it to some products and a time window."
            : "An owner or admin of this organization creates discounts.",
        }}
        columns={[
          {
            label: "Name",
            sort: "name",
            render: (d) =>
              canWrite ? (
                <Anchor component="button" onClick={() => setEditing(d)}>
                  {d.name}
                </Anchor>
              ) : (
                d.name
              ),
          },
          {
            label: "Code",
            sort: "code",
            render: (d) =>
              d.code ? (
                <code>{d.code}</code>
              ) : (
                <Text c="dimmed" size="sm">
                  automatic
                </Text>
              ),
          },
          { label: "Amount", render: discountAmount },
          { label: "Duration", sort: "duration", render: discountDuration },
          {
            label: "Redemptions",
            sort: "redemptions_count",
            render: (d) => `${d.redemptions_count}${d.max_redemptions ? ` / ${d.max_redemptions}` : ""}`,
          },
          {
            label: "Valid",
            render: (d) =>
              d.starts_at || d.ends_at
                ? `${formatDate(d.starts_at) || "now"} to ${formatDate(d.ends_at) || "no end"}`
                : "Always",
          },
          {
            label: "Actions",
            render: (d) => (
              <RowDeleteButton show={canWrite} label={`Delete ${d.name}`} onClick={() => setDeleting(d)} />
            ),
          },
        ]}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New discount"
        editTitle="Edit discount"
      >
        {(discount) => (
          <DiscountForm discount={discount} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="discounts"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this discount?"
        confirmLabel="Delete discount"
        failure="Refused."
      >
        {deleting?.name} can no longer be redeemed; subscriptions that have it keep it.
      </DeleteRowDialog>
    </Stack>
  );
}

function DiscountForm({
  discount,
  organizationId,
  onDone,
}: {
  discount?: Discount;
  organizationId: string;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const products = useQuery(
    listQuery<Product>(organizationId, "products", { limit: 100, is_archived: false }),
  );
  const [name, setName] = useState(discount?.name ?? "");
  const [code, setCode] = useState(discount?.code ?? "");
  const [type, setType] = useState<"fixed" | "percentage">(discount?.type ?? "percentage");
  const [currency, setCurrency] = useState(discount?.currency ?? "usd");
  const [amount, setAmount] = useState<number | undefined>(
    toMajor(discount?.amount, discount?.currency ?? "usd"),
  );
  const [percent, setPercent] = useState<number | undefined>(
    discount?.basis_points ? discount.basis_points / 100 : undefined,
  );
  const [duration, setDuration] = useState(discount?.duration ?? "once");
  const [months, setMonths] = useState<number | undefined>(discount?.duration_in_months ?? undefined);
  const [startsAt, setStartsAt] = useState(toLocalInput(discount?.starts_at ?? null));
  const [endsAt, setEndsAt] = useState(toLocalInput(discount?.ends_at ?? null));
  const [maxRedemptions, setMaxRedemptions] = useState<number | undefined>(
    discount?.max_redemptions ?? undefined,
  );
  const [productIds, setProductIds] = useState<string[]>(discount?.products.map((p) => String(p.id)) ?? []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setRefusal(null);
    setSaving(true);
    try {
      const body = {
        name: name.trim(),
        code: code.trim() || null,
        type,
        ...(type === "fixed"
          ? { amount: toMinor(amount, currency) ?? null, currency }
          : { basis_points: percent === undefined ? null : Math.round(percent * 100) }),
        duration,
        duration_in_months: duration === "repeating" ? (months ?? null) : null,
        starts_at: fromLocalInput(startsAt),
        ends_at: fromLocalInput(endsAt),
        max_redemptions: maxRedemptions ?? null,
        products: productIds,
      };
      if (discount) await v1(organizationId, `/discounts/${discount.id}`, { method: "PATCH", body });
      else await v1(organizationId, "/discounts/", { method: "POST", body });
      await invalidate(queryClient, organizationId, "discounts");
      notifications.show({ color: "green", message: discount ? "Discount saved." : "Discount created." });
      onDone();
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) setErrors(e.fieldErrors());
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The discount was not saved">
          {refusal}
        </Alert>
      )}
      <TextInput
        label="Name"
        required
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={errors.name}
      />
      <TextInput
        label="Code"
        description="Letters, digits, dashes and underscores; empty for a discount applied by link."
        value={code}
        onChange={(e) => setCode(e.currentTarget.value)}
        error={errors.code}
      />
      <SegmentedControl
        aria-label="Kind of discount"
        value={type}
        onChange={(v) => setType(v === "fixed" ? "fixed" : "percentage")}
        data={[
          { value: "percentage", label: "Percentage" },
          { value: "fixed", label: "Fixed amount" },
        ]}
        w="fit-content"
      />
      {type === "percentage" ? (
        <NumberInput
          label="Percent off"
          required
          min={0.01}
          max={100}
          decimalScale={2}
          value={percent ?? ""}
          onChange={(v) => setPercent(v === "" ? undefined : Number(v))}
          error={errors.basis_points}
          w={160}
        />
      ) : (
        <Group align="flex-start">
          <NumberInput
            label={`Amount off (${currency.toUpperCase()})`}
            required
            min={0}
            decimalScale={fractionDigits(currency)}
            value={amount ?? ""}
            onChange={(v) => setAmount(v === "" ? undefined : Number(v))}
            error={errors.amount}
            w={180}
          />
          <Select
            label="Currency"
            data={["usd", "eur", "gbp", "cad", "aud", "chf", "sek", "jpy"].map((c) => ({
              value: c,
              label: c.toUpperCase(),
            }))}
            value={currency}
            onChange={(v) => v && setCurrency(v)}
            allowDeselect={false}
            error={errors.currency}
            w={120}
          />
        </Group>
      )}
      <Group align="flex-start">
        <Select
          label="Duration"
          data={[
            { value: "once", label: "Once" },
            { value: "repeating", label: "Several months" },
            { value: "forever", label: "Forever" },
          ]}
          value={duration}
          onChange={(v) => (v === "once" || v === "forever" || v === "repeating") && setDuration(v)}
          allowDeselect={false}
          w={200}
        />
        {duration === "repeating" && (
          <NumberInput
            label="Months"
            required
            min={1}
            max={999}
            value={months ?? ""}
            onChange={(v) => setMonths(v === "" ? undefined : Number(v))}
            error={errors.duration_in_months}
            w={120}
          />
        )}
      </Group>
      <Group grow align="flex-start">
        <TextInput
          type="datetime-local"
          label="Starts"
          value={startsAt}
          onChange={(e) => setStartsAt(e.currentTarget.value)}
          error={errors.starts_at}
        />
        <TextInput
          type="datetime-local"
          label="Ends"
          value={endsAt}
          onChange={(e) => setEndsAt(e.currentTarget.value)}
          error={errors.ends_at}
        />
      </Group>
      <NumberInput
        label="Maximum redemptions"
        description="Empty: unlimited."
        min={1}
        value={maxRedemptions ?? ""}
        onChange={(v) => setMaxRedemptions(v === "" ? undefined : Number(v))}
        error={errors.max_redemptions}
        w={220}
      />
      <MultiSelect
        label="Only for these products"
        placeholder="Every product"
        data={(products.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))}
        value={productIds}
        onChange={setProductIds}
        error={errors.products}
        searchable
      />
      {discount && (
        <Text size="sm" c="dimmed">
          {discount.redemptions_count === 1
            ? "Redeemed once."
            : `Redeemed ${discount.redemptions_count} times.`}
        </Text>
      )}
      <DialogActions>
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button loading={saving} onClick={() => void save()}>
          {discount ? "Save discount" : "Create discount"}
        </Button>
      </DialogActions>
    </Stack>
  );
}
