import { zodResolver } from "@hookform/resolvers/zod";
import { ProductCreate, ProductUpdate, RECURRING_INTERVALS } from "@kassa/contracts/v1";
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Tabs,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconArchive, IconArchiveOff } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { MarkdownText } from "../../components/markdown";
import { PageHeader } from "../../components/states";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import {
  type Benefit,
  type CustomField,
  listQuery,
  type Meter,
  type Product,
  type ProductMedia,
  type RecurringInterval,
  V1Error,
} from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { errorsByPath, FormRefusal, MultiSelectField, SelectField } from "../billing/form";
import { useBilling } from "../billing/list";
import { MediaEditor } from "../billing/media-editor";
import { MetadataEditor, type MetadataRow, metadataOf, rowsOf } from "../billing/metadata-editor";
import {
  draftOf,
  emptyPrice,
  type PriceDraft,
  PriceEditor,
  pricesPayload,
  validatePrices,
} from "../billing/price-editor";
import { useArchiveProduct, useSaveProduct, useUnarchiveProduct } from "./queries";

/** How often usage is billed, by meter interval. */
const CYCLE_LABELS: Record<string, string> = {
  day: "daily",
  week: "weekly",
  month: "monthly",
  year: "yearly",
};

/** The meter cycles that divide a billing interval evenly (one unit each): shorter ones only. */
function meterCyclesFor(billing: RecurringInterval): RecurringInterval[] {
  if (billing === "year") return ["day", "month"];
  if (billing === "month") return ["day"];
  if (billing === "week") return ["day"];
  return [];
}

const CURRENCIES = ["usd", "eur", "gbp", "cad", "aud", "chf", "sek", "jpy"];

/**
 * The product as edited: prices as drafts in major units (checked with the price editor's
 * words, `validatePrices`, then by the contract: a negative or too large amount is refused at
 * its field), the attached checkout fields, the media as uploaded, metadata as rows.
 */
const ProductFormShape = z
  .object({
    // The contract's rule (3 to 256 characters), said for people before the contract says it.
    name: z.string().refine((v) => v.trim().length >= 3, "A name of at least 3 characters."),
    description: z.string(),
    interval: z.custom<RecurringInterval | null>(),
    /** A separate meter cycle (usage billed more often than the product renews); null: at each renewal. */
    meterInterval: z.custom<RecurringInterval | null>(),
    currency: z.string(),
    prices: z.custom<PriceDraft[]>(),
    benefits: z.array(z.string()),
    attached: z.array(z.object({ custom_field_id: z.string(), required: z.boolean() })),
    medias: z.custom<ProductMedia[]>(),
    metadata: z.custom<MetadataRow[]>(),
  })
  .superRefine((v, ctx) => {
    for (const [path, message] of Object.entries(validatePrices(v.prices, v.currency)))
      ctx.addIssue({ code: "custom", path: path.split("."), message });
  });
export type ProductFormValues = z.output<typeof ProductFormShape>;

/** The request body of the product's form; an unchanged stored price is sent as its id. */
export function productBody(v: ProductFormValues, product?: Product): z.input<typeof ProductCreate> {
  return {
    name: v.name.trim(),
    description: v.description.trim() === "" ? null : v.description,
    recurring_interval: v.interval,
    // Set once, when the product is made (the server refuses it where meter cycling is off).
    ...(!product && v.interval && v.meterInterval ? { meter_interval: v.meterInterval } : {}),
    // The drafts become wire prices here; the contract checks them (`checkedAgainst`) before
    // anything is sent, so their loose type is narrowed by that check, not by this cast.
    prices: pricesPayload(v.prices, v.currency, product?.prices) as z.input<typeof ProductCreate>["prices"],
    attached_custom_fields: v.attached,
    medias: v.medias.map((m) => m.id),
    metadata: metadataOf(v.metadata),
  };
}

/** The wire's fields on the form's (the same for the checks here and the server's 422s). */
const FIELDS: FieldMap = {
  name: "name",
  description: "description",
  recurring_interval: "interval",
  meter_interval: "meterInterval",
  "prices.*": "prices",
  benefits: "benefits",
  attached_custom_fields: "attached",
  medias: "medias",
  metadata: "metadata",
};

const valuesOf = (product: Product | undefined): ProductFormValues => {
  const live = product?.prices.filter((p) => !p.is_archived) ?? [];
  return {
    name: product?.name ?? "",
    description: product?.description ?? "",
    interval: product?.recurring_interval ?? null,
    meterInterval: product?.meter_interval ?? null,
    currency: live[0]?.price_currency ?? "usd",
    prices: live.length ? live.map(draftOf) : [emptyPrice("fixed")],
    benefits: product?.benefits.map((b) => String(b.id)) ?? [],
    attached:
      product?.attached_custom_fields.map((a) => ({
        custom_field_id: a.custom_field_id,
        required: a.required,
      })) ?? [],
    medias: product?.medias ?? [],
    metadata: rowsOf(product?.metadata),
  };
};

/** The product editor (a new product when `product` is undefined); back to the list when saved. */
export function ProductForm({ product }: { product: Product | undefined }) {
  const { organizationId, canWrite, slug } = useBilling();
  const navigate = useNavigate();
  const meters = useQuery(listQuery<Meter>(organizationId, "meters", { limit: 100, is_archived: false }));
  const benefits = useQuery(listQuery<Benefit>(organizationId, "benefits", { limit: 100 }));
  const fields = useQuery(listQuery<CustomField>(organizationId, "custom-fields", { limit: 100 }));
  const save = useSaveProduct(organizationId);
  const archiveProduct = useArchiveProduct(organizationId);
  const unarchiveProduct = useUnarchiveProduct(organizationId);
  const [archiveOpen, setArchiveOpen] = useState(false);
  const disabled = !canWrite;
  const schema = useMemo(
    () =>
      checkedAgainst(
        ProductFormShape,
        product ? ProductUpdate : ProductCreate,
        (v) => productBody(v, product),
        FIELDS,
      ),
    [product],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<ProductFormValues>({ resolver: zodResolver(schema), defaultValues: valuesOf(product) });
  const [description, interval, currency, meterInterval] = watch([
    "description",
    "interval",
    "currency",
    "meterInterval",
  ]);
  const meterChoices = interval ? meterCyclesFor(interval) : [];
  const toList = () => navigate({ to: "/dashboard/$slug/products", params: { slug } });

  const submit = handleSubmit(async (values) => {
    try {
      await save.mutateAsync({ product, body: productBody(values, product), benefits: values.benefits });
      notifications.show({ color: "green", message: product ? "Product saved." : "Product created." });
      await toList();
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, FIELDS);
    }
  });

  const archive = async () => {
    if (!product) return null;
    try {
      await archiveProduct.mutateAsync(product);
      await toList();
      return null;
    } catch (e) {
      return e instanceof V1Error ? e : new V1Error(0, undefined, "Could not archive.");
    }
  };

  // No confirmation: it only puts the product back on sale (a failure shows under the header).
  const unarchive = (p: Product) =>
    unarchiveProduct.mutate(p, {
      onSuccess: () => notifications.show({ color: "green", message: "Product unarchived: on sale again." }),
    });

  const fieldList = fields.data?.items ?? [];
  return (
    <>
      <form onSubmit={submit} noValidate>
        <Stack gap="lg" maw={900}>
          <PageHeader
            title={product ? product.name : "New product"}
            description={
              product?.is_archived ? (
                <Badge color="orange">Archived</Badge>
              ) : (
                "Name, prices, benefits, checkout fields and media."
              )
            }
            actions={
              product &&
              canWrite &&
              (product.is_archived ? (
                <Button
                  variant="default"
                  leftSection={<IconArchiveOff size={16} />}
                  loading={unarchiveProduct.isPending}
                  onClick={() => unarchive(product)}
                >
                  Unarchive
                </Button>
              ) : (
                <Button
                  variant="default"
                  color="red"
                  leftSection={<IconArchive size={16} />}
                  onClick={() => setArchiveOpen(true)}
                >
                  Archive
                </Button>
              ))
            }
          />
          {unarchiveProduct.error && (
            <Alert color="red" title="The product was not unarchived">
              {unarchiveProduct.error.message || "Try again."}
            </Alert>
          )}
          {!canWrite && (
            <Alert color="gray" title="Read only">
              Your role lets you see products; an owner or admin changes them.
            </Alert>
          )}
          <FormRefusal errors={errors} title="The product was not saved" />
          <Paper withBorder p="md" radius="md">
            <Stack gap="md">
              <TextInput
                label="Name"
                required
                {...register("name")}
                error={errors.name?.message}
                disabled={disabled}
              />
              <Tabs defaultValue="write">
                <Tabs.List>
                  <Tabs.Tab value="write">Description</Tabs.Tab>
                  <Tabs.Tab value="preview">Preview</Tabs.Tab>
                </Tabs.List>
                <Tabs.Panel value="write" pt="xs">
                  <Textarea
                    aria-label="Description"
                    description="Markdown: **bold**, _italic_, lists, links."
                    rows={5}
                    {...register("description")}
                    error={errors.description?.message}
                    disabled={disabled}
                  />
                </Tabs.Panel>
                <Tabs.Panel value="preview" pt="xs">
                  {description.trim() ? (
                    <MarkdownText>{description}</MarkdownText>
                  ) : (
                    <Text c="dimmed">Nothing to preview yet.</Text>
                  )}
                </Tabs.Panel>
              </Tabs>
            </Stack>
          </Paper>

          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="pricing">
            <Stack gap="md">
              <Title order={2} size="h4" id="pricing">
                Pricing
              </Title>
              <Group gap="md" align="flex-end">
                <Stack gap={4}>
                  <Text size="sm" fw={500}>
                    Billing
                  </Text>
                  <Controller
                    control={control}
                    name="interval"
                    render={({ field }) => (
                      <SegmentedControl
                        aria-label="Billing"
                        value={field.value ?? "once"}
                        onChange={(v) => field.onChange(RECURRING_INTERVALS.find((i) => i === v) ?? null)}
                        data={[
                          { value: "once", label: "One-time" },
                          { value: "day", label: "Daily" },
                          { value: "week", label: "Weekly" },
                          { value: "month", label: "Monthly" },
                          { value: "year", label: "Yearly" },
                        ]}
                        disabled={disabled}
                      />
                    )}
                  />
                </Stack>
                <SelectField
                  control={control}
                  name="currency"
                  label="Currency"
                  data={CURRENCIES.map((c) => ({ value: c, label: c.toUpperCase() }))}
                  disabled={disabled || Boolean(product)}
                  w={120}
                />
              </Group>
              {errors.interval?.message && (
                <Text c="red" size="sm">
                  {errors.interval.message}
                </Text>
              )}
              {product?.meter_interval ? (
                <Text size="sm" c="dimmed">
                  Usage is billed {CYCLE_LABELS[product.meter_interval]}, apart from the{" "}
                  {product.recurring_interval === "year" ? "yearly" : "billing"} renewal (set when the product
                  was made).
                </Text>
              ) : (
                !product &&
                meterChoices.length > 0 && (
                  <Controller
                    control={control}
                    name="meterInterval"
                    render={({ field, fieldState }) => (
                      <Select
                        label="Usage billed"
                        description="Metered prices can be billed more often than the product renews (turn on Meter cycling enabled in Settings, Billing, Features first)."
                        allowDeselect={false}
                        w={360}
                        value={
                          meterInterval && meterChoices.includes(meterInterval) ? meterInterval : "renewal"
                        }
                        onChange={(v) => field.onChange(RECURRING_INTERVALS.find((i) => i === v) ?? null)}
                        data={[
                          { value: "renewal", label: "At each renewal" },
                          ...meterChoices.map((c) => ({ value: c, label: `Separately, ${CYCLE_LABELS[c]}` })),
                        ]}
                        error={fieldState.error?.message}
                        disabled={disabled}
                      />
                    )}
                  />
                )
              )}
              <Controller
                control={control}
                name="prices"
                render={({ field }) => (
                  <PriceEditor
                    prices={field.value}
                    onChange={field.onChange}
                    currency={currency}
                    interval={interval}
                    meters={meters.data?.items ?? []}
                    errors={errorsByPath(errors, "prices")}
                    disabled={disabled}
                  />
                )}
              />
            </Stack>
          </Paper>

          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="benefits">
            <Stack gap="sm">
              <Title order={2} size="h4" id="benefits">
                Benefits
              </Title>
              <MultiSelectField
                control={control}
                name="benefits"
                label="Benefits buyers get"
                placeholder={
                  benefits.data?.items.length
                    ? "Choose benefits"
                    : "No benefits yet: create them under Benefits"
                }
                data={(benefits.data?.items ?? []).map((b) => ({
                  value: b.id,
                  label: `${b.description} (${b.type.replace("_", " ")})`,
                }))}
                disabled={disabled}
                searchable
              />
            </Stack>
          </Paper>

          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="fields">
            <Stack gap="sm">
              <Title order={2} size="h4" id="fields">
                Checkout fields
              </Title>
              {fieldList.length === 0 && (
                <Text size="sm" c="dimmed">
                  No custom fields yet: create them under Custom fields to ask buyers for more at checkout.
                </Text>
              )}
              <Controller
                control={control}
                name="attached"
                render={({ field: { value: attached, onChange } }) => (
                  <>
                    {fieldList.map((f) => {
                      const on = attached.find((a) => a.custom_field_id === f.id);
                      return (
                        <Group key={f.id} gap="lg">
                          <Checkbox
                            label={`${f.name} (${f.type})`}
                            checked={Boolean(on)}
                            onChange={(e) =>
                              onChange(
                                e.currentTarget.checked
                                  ? [...attached, { custom_field_id: f.id, required: false }]
                                  : attached.filter((a) => a.custom_field_id !== f.id),
                              )
                            }
                            disabled={disabled}
                          />
                          {on && (
                            <Switch
                              label="Required"
                              checked={on.required}
                              onChange={(e) => {
                                const required = e.currentTarget.checked;
                                onChange(
                                  attached.map((a) => (a.custom_field_id === f.id ? { ...a, required } : a)),
                                );
                              }}
                              disabled={disabled}
                            />
                          )}
                        </Group>
                      );
                    })}
                  </>
                )}
              />
              {errors.attached?.message && (
                <Text c="red" size="sm">
                  {errors.attached.message}
                </Text>
              )}
            </Stack>
          </Paper>

          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="media">
            <Stack gap="sm">
              <Title order={2} size="h4" id="media">
                Media
              </Title>
              <Controller
                control={control}
                name="medias"
                render={({ field }) => (
                  <MediaEditor
                    organizationId={organizationId}
                    medias={field.value}
                    onChange={field.onChange}
                    error={errors.medias?.message}
                    disabled={disabled}
                  />
                )}
              />
            </Stack>
          </Paper>

          <Paper withBorder p="md" radius="md">
            <Controller
              control={control}
              name="metadata"
              render={({ field }) => (
                <MetadataEditor
                  rows={field.value}
                  onChange={field.onChange}
                  error={errors.metadata?.message}
                  disabled={disabled}
                />
              )}
            />
          </Paper>

          {canWrite && (
            <Group justify="flex-end">
              <Button variant="default" onClick={() => void toList()}>
                Cancel
              </Button>
              <Button type="submit" loading={isSubmitting}>
                {product ? "Save product" : "Create product"}
              </Button>
            </Group>
          )}
        </Stack>
      </form>
      <ConfirmDialog
        opened={archiveOpen}
        onClose={() => setArchiveOpen(false)}
        title="Archive this product?"
        confirmLabel="Archive product"
        onConfirm={archive}
      >
        {product?.name} will no longer be sold. Existing subscriptions and orders keep it.
      </ConfirmDialog>
    </>
  );
}
