import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  MultiSelect,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconLink, IconPlus } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { DialogActions } from "../../../components/dialog-actions";
import { PageHeader } from "../../../components/states";
import { CopyIcon, CopyUrl } from "../../../features/billing/commerce";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import {
  MetadataEditor,
  type MetadataRow,
  metadataOf,
  rowsOf,
} from "../../../features/billing/metadata-editor";
import { useProducts } from "../../../features/billing/pickers";
import {
  DeleteRowDialog,
  type Editing,
  EditorModal,
  RowDeleteButton,
} from "../../../features/billing/row-actions";
import { type CheckoutLink, type Discount, invalidate, listQuery, V1Error, v1 } from "../../../lib/v1";

const linkName = (l: CheckoutLink) => l.label || l.products.map((p) => p.name).join(", ") || "Checkout link";

/** `/dashboard/{slug}/checkout-links`: lasting links that open a checkout for one or more products. */
export function CheckoutLinksPage() {
  const { organizationId, canWrite } = useBilling();
  const { search, page, limit } = useListParams();
  const links = useQuery(
    listQuery<CheckoutLink>(organizationId, "checkout-links", { page, limit, sorting: search.sorting }),
  );
  const [editing, setEditing] = useState<Editing<CheckoutLink>>(null);
  const [deleting, setDeleting] = useState<CheckoutLink | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Checkout links"
        description="A lasting address to share (on your site, in an e-mail): each visit opens a fresh checkout."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New checkout link
            </Button>
          )
        }
      />
      <ListView
        query={links}
        label="checkout links"
        caption="Checkout links"
        empty={{
          icon: IconLink,
          title: "No checkout links yet",
          children: canWrite
            ? "Create a link for one or more products and share it: buyers who follow it pay on Kassa's checkout page."
            : "An owner or admin of this organization creates checkout links.",
        }}
        columns={[
          {
            label: "Link",
            sort: "label",
            render: (l) =>
              canWrite ? (
                <Anchor component="button" onClick={() => setEditing(l)}>
                  {linkName(l)}
                </Anchor>
              ) : (
                linkName(l)
              ),
          },
          { label: "Products", render: (l) => l.products.map((p) => p.name).join(", ") },
          {
            label: "Address",
            render: (l) => (
              <Group gap={4} wrap="nowrap">
                <Text size="sm" truncate maw={260} title={l.url}>
                  {l.url}
                </Text>
                <CopyIcon value={l.url} label={`the address of ${linkName(l)}`} />
              </Group>
            ),
          },
          {
            label: "Options",
            render: (l) => (
              <Group gap={4}>
                {l.allow_discount_codes && <Badge variant="light">Discount codes</Badge>}
                {l.require_billing_address && <Badge variant="light">Billing address</Badge>}
              </Group>
            ),
          },
          { label: "Created", sort: "created_at", render: (l) => formatDate(l.created_at) },
          {
            label: "Actions",
            render: (l) => (
              <RowDeleteButton
                show={canWrite}
                label={`Delete ${linkName(l)}`}
                onClick={() => setDeleting(l)}
              />
            ),
          },
        ]}
      />
      <EditorModal
        editing={editing}
        onClose={() => setEditing(null)}
        newTitle="New checkout link"
        editTitle="Edit checkout link"
      >
        {(link) => (
          <CheckoutLinkForm link={link} organizationId={organizationId} onDone={() => setEditing(null)} />
        )}
      </EditorModal>
      <DeleteRowDialog
        organizationId={organizationId}
        resource="checkout-links"
        row={deleting}
        onClose={() => setDeleting(null)}
        title="Delete this checkout link?"
        confirmLabel="Delete link"
        failure="The link was not deleted."
      >
        {deleting && linkName(deleting)} stops working: whoever follows it gets an error page. Checkouts
        already opened from it are kept.
      </DeleteRowDialog>
    </Stack>
  );
}

function CheckoutLinkForm({
  link,
  organizationId,
  onDone,
}: {
  link?: CheckoutLink;
  organizationId: string;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const products = useProducts(organizationId);
  const discounts = useQuery(listQuery<Discount>(organizationId, "discounts", { limit: 100 }));
  const [productIds, setProductIds] = useState<string[]>(link?.products.map((p) => String(p.id)) ?? []);
  const [label, setLabel] = useState(link?.label ?? "");
  const [allowCodes, setAllowCodes] = useState(link?.allow_discount_codes ?? true);
  const [requireAddress, setRequireAddress] = useState(link?.require_billing_address ?? false);
  const [discountId, setDiscountId] = useState<string | null>(link?.discount_id ?? null);
  const [successUrl, setSuccessUrl] = useState(link?.success_url ?? "");
  const [metadata, setMetadata] = useState<MetadataRow[]>(rowsOf(link?.metadata));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [created, setCreated] = useState<CheckoutLink | null>(null);

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

  const save = async () => {
    setRefusal(null);
    const invalid: Record<string, string> = {};
    if (productIds.length === 0) invalid.products = "Choose at least one product.";
    if (successUrl.trim() && !/^https?:\/\/\S+$/.test(successUrl.trim()))
      invalid.success_url = "Enter a full address (https://…).";
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    setSaving(true);
    const body = {
      products: productIds,
      label: label.trim() || null,
      allow_discount_codes: allowCodes,
      require_billing_address: requireAddress,
      discount_id: discountId,
      success_url: successUrl.trim() || null,
      metadata: metadataOf(metadata),
    };
    try {
      if (link) {
        await v1<CheckoutLink>(organizationId, `/checkout-links/${link.id}`, { method: "PATCH", body });
      } else {
        const saved = await v1<CheckoutLink>(organizationId, "/checkout-links/", {
          method: "POST",
          body: { payment_processor: "stripe", ...body },
        });
        setCreated(saved);
      }
      await invalidate(queryClient, organizationId, "checkout-links");
      notifications.show({
        color: "green",
        message: link ? "Checkout link saved." : "Checkout link created.",
      });
      if (link) onDone();
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) {
        const byField = e.fieldErrors();
        const productError = Object.entries(byField).find(([k]) => k.startsWith("products."))?.[1];
        setErrors({ ...byField, ...(productError && !byField.products ? { products: productError } : {}) });
      }
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The checkout link was not saved">
          {refusal}
        </Alert>
      )}
      {link && <CopyUrl url={link.url} label="Checkout link URL" />}
      <MultiSelect
        label="Products"
        required
        description="With several, the buyer chooses one on the checkout page."
        data={(products.data?.items ?? [])
          .filter((p) => !p.is_archived || productIds.includes(p.id))
          .map((p) => ({ value: p.id, label: p.name }))}
        value={productIds}
        onChange={setProductIds}
        error={errors.products}
        searchable
      />
      <TextInput
        label="Label"
        description="For you, to tell links apart (the buyer does not see it)."
        value={label}
        onChange={(e) => setLabel(e.currentTarget.value)}
        error={errors.label}
      />
      <Switch
        label="Allow discount codes"
        checked={allowCodes}
        onChange={(e) => setAllowCodes(e.currentTarget.checked)}
      />
      <Switch
        label="Require a billing address"
        checked={requireAddress}
        onChange={(e) => setRequireAddress(e.currentTarget.checked)}
      />
      <Select
        label="Discount applied"
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
        description="Where buyers land after paying; empty shows Kassa's confirmation page."
        placeholder="https://example.com/thanks"
        value={successUrl}
        onChange={(e) => setSuccessUrl(e.currentTarget.value)}
        error={errors.success_url}
      />
      <MetadataEditor rows={metadata} onChange={setMetadata} error={errors.metadata} />
      <DialogActions>
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button loading={saving} onClick={() => void save()}>
          {link ? "Save link" : "Create link"}
        </Button>
      </DialogActions>
    </Stack>
  );
}
