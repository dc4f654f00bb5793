import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  MultiSelect,
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
import { IconArchive } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { MarkdownText } from "../../../components/markdown";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { MediaEditor } from "../../../features/billing/media-editor";
import {
  MetadataEditor,
  type MetadataRow,
  metadataOf,
  rowsOf,
} from "../../../features/billing/metadata-editor";
import {
  draftOf,
  emptyPrice,
  type PriceDraft,
  PriceEditor,
  pricesPayload,
  validatePrices,
} from "../../../features/billing/price-editor";
import {
  type Benefit,
  type CustomField,
  getQuery,
  invalidate,
  listQuery,
  type Meter,
  type Product,
  type ProductMedia,
  type RecurringInterval,
  V1Error,
  v1,
} from "../../../lib/v1";

const CURRENCIES = ["usd", "eur", "gbp", "cad", "aud", "chf", "sek", "jpy"];

/** `/dashboard/{slug}/products/new` and `/dashboard/{slug}/products/{id}`: the product editor. */
export function ProductEditorPage() {
  const { productId = "new" } = useParams({ strict: false }) as { productId?: string };
  const { organizationId } = useBilling();
  const isNew = productId === "new";
  const product = useQuery(getQuery<Product>(organizationId, "products", isNew ? "" : productId));
  if (!isNew && product.isPending) return <LoadingState label="Loading the product" />;
  if (!isNew && product.isError)
    return <ErrorState error={product.error} onRetry={() => void product.refetch()} />;
  return <ProductForm key={product.data?.id ?? "new"} product={isNew ? undefined : product.data} />;
}

function ProductForm({ product }: { product: Product | undefined }) {
  const { organizationId, canWrite, slug } = useBilling();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const meters = useQuery(listQuery<Meter>(organizationId, "meters", { limit: 100, is_archived: false }));
  const benefits = useQuery(listQuery<Benefit>(organizationId, "benefits", { limit: 100 }));
  const fields = useQuery(listQuery<CustomField>(organizationId, "custom-fields", { limit: 100 }));

  const livePrices = product?.prices.filter((p) => !p.is_archived) ?? [];
  const [name, setName] = useState(product?.name ?? "");
  const [description, setDescription] = useState(product?.description ?? "");
  const [interval, setInterval] = useState<RecurringInterval | null>(product?.recurring_interval ?? null);
  const [currency, setCurrency] = useState(livePrices[0]?.price_currency ?? "usd");
  const [prices, setPrices] = useState<PriceDraft[]>(
    livePrices.length ? livePrices.map(draftOf) : [emptyPrice("fixed")],
  );
  const [benefitIds, setBenefitIds] = useState<string[]>(product?.benefits.map((b) => String(b.id)) ?? []);
  const [attached, setAttached] = useState<{ custom_field_id: string; required: boolean }[]>(
    product?.attached_custom_fields.map((a) => ({
      custom_field_id: a.custom_field_id,
      required: a.required,
    })) ?? [],
  );
  const [medias, setMedias] = useState<ProductMedia[]>(product?.medias ?? []);
  const [metadata, setMetadata] = useState<MetadataRow[]>(rowsOf(product?.metadata));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [archiveOpen, setArchiveOpen] = useState(false);
  const disabled = !canWrite;

  const save = async () => {
    setRefusal(null);
    const local = validatePrices(prices, currency);
    if (name.trim().length < 3) local.name = "A name of at least 3 characters.";
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    setSaving(true);
    try {
      const common = {
        name: name.trim(),
        description: description.trim() === "" ? null : description,
        recurring_interval: interval,
        prices: pricesPayload(prices, currency, product?.prices),
        attached_custom_fields: attached,
        medias: medias.map((m) => m.id),
        metadata: metadataOf(metadata),
      };
      const saved = product
        ? await v1<Product>(organizationId, `/products/${product.id}`, { method: "PATCH", body: common })
        : await v1<Product>(organizationId, "/products/", { method: "POST", body: common });
      const before = (product?.benefits.map((b) => b.id) ?? []).join(",");
      if (before !== benefitIds.join(","))
        await v1<Product>(organizationId, `/products/${saved.id}/benefits`, {
          method: "POST",
          body: { benefits: benefitIds },
        });
      await invalidate(queryClient, organizationId, "products");
      notifications.show({ color: "green", message: product ? "Product saved." : "Product created." });
      await navigate({ to: "/dashboard/$slug/products", params: { slug } });
    } catch (e) {
      // The 422's fields show under their inputs; the alert says it in words too.
      if (e instanceof V1Error && e.issues.length) setErrors(e.fieldErrors());
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  const archive = async () => {
    if (!product) return null;
    try {
      await v1(organizationId, `/products/${product.id}`, { method: "PATCH", body: { is_archived: true } });
      await invalidate(queryClient, organizationId, "products");
      await navigate({ to: "/dashboard/$slug/products", params: { slug } });
      return null;
    } catch (e) {
      return e instanceof V1Error ? e : new V1Error(0, undefined, "Could not archive.");
    }
  };

  const fieldList = fields.data?.items ?? [];
  return (
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
          !product.is_archived && (
            <Button
              variant="default"
              color="red"
              leftSection={<IconArchive size={16} />}
              onClick={() => setArchiveOpen(true)}
            >
              Archive
            </Button>
          )
        }
      />
      {!canWrite && (
        <Alert color="gray" title="Read only">
          Your role lets you see products; an owner or admin changes them.
        </Alert>
      )}
      {refusal && (
        <Alert color="red" role="alert" title="The product was not saved">
          {refusal}
        </Alert>
      )}
      <Paper withBorder p="md" radius="md">
        <Stack gap="md">
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors.name}
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
                value={description}
                onChange={(e) => setDescription(e.currentTarget.value)}
                error={errors.description}
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
              <SegmentedControl
                aria-label="Billing"
                value={interval ?? "once"}
                onChange={(v) => setInterval(v === "month" || v === "year" ? v : null)}
                data={[
                  { value: "once", label: "One-time" },
                  { value: "month", label: "Monthly" },
                  { value: "year", label: "Yearly" },
                ]}
                disabled={disabled}
              />
            </Stack>
            <Select
              label="Currency"
              data={CURRENCIES.map((c) => ({ value: c, label: c.toUpperCase() }))}
              value={currency}
              onChange={(v) => v && setCurrency(v)}
              allowDeselect={false}
              disabled={disabled || Boolean(product)}
              w={120}
            />
          </Group>
          {errors.recurring_interval && (
            <Text c="red" size="sm">
              {errors.recurring_interval}
            </Text>
          )}
          <PriceEditor
            prices={prices}
            onChange={setPrices}
            currency={currency}
            interval={interval}
            meters={meters.data?.items ?? []}
            errors={errors}
            disabled={disabled}
          />
        </Stack>
      </Paper>

      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="benefits">
        <Stack gap="sm">
          <Title order={2} size="h4" id="benefits">
            Benefits
          </Title>
          <MultiSelect
            label="Benefits buyers get"
            placeholder={
              benefits.data?.items.length ? "Choose benefits" : "No benefits yet: create them under Benefits"
            }
            data={(benefits.data?.items ?? []).map((b) => ({
              value: b.id,
              label: `${b.description} (${b.type.replace("_", " ")})`,
            }))}
            value={benefitIds}
            onChange={setBenefitIds}
            error={errors.benefits}
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
          {fieldList.map((f) => {
            const on = attached.find((a) => a.custom_field_id === f.id);
            return (
              <Group key={f.id} gap="lg">
                <Checkbox
                  label={`${f.name} (${f.type})`}
                  checked={Boolean(on)}
                  onChange={(e) =>
                    setAttached(
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
                      setAttached(attached.map((a) => (a.custom_field_id === f.id ? { ...a, required } : a)));
                    }}
                    disabled={disabled}
                  />
                )}
              </Group>
            );
          })}
          {errors.attached_custom_fields && (
            <Text c="red" size="sm">
              {errors.attached_custom_fields}
            </Text>
          )}
        </Stack>
      </Paper>

      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="media">
        <Stack gap="sm">
          <Title order={2} size="h4" id="media">
            Media
          </Title>
          <MediaEditor
            organizationId={organizationId}
            medias={medias}
            onChange={setMedias}
            error={errors.medias ?? Object.entries(errors).find(([k]) => k.startsWith("medias."))?.[1]}
            disabled={disabled}
          />
        </Stack>
      </Paper>

      <Paper withBorder p="md" radius="md">
        <MetadataEditor rows={metadata} onChange={setMetadata} error={errors.metadata} disabled={disabled} />
      </Paper>

      {canWrite && (
        <Group justify="flex-end">
          <Button
            variant="default"
            onClick={() => void navigate({ to: "/dashboard/$slug/products", params: { slug } })}
          >
            Cancel
          </Button>
          <Button loading={saving} onClick={() => void save()}>
            {product ? "Save product" : "Create product"}
          </Button>
        </Group>
      )}
      <ConfirmDialog
        opened={archiveOpen}
        onClose={() => setArchiveOpen(false)}
        title="Archive this product?"
        confirmLabel="Archive product"
        onConfirm={archive}
      >
        {product?.name} will no longer be sold. Existing subscriptions and orders keep it.
      </ConfirmDialog>
    </Stack>
  );
}
