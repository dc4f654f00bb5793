import { Anchor, Group, Select, Stack, Text } from "@mantine/core";
import { IconKey } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { AnchorLink } from "../../components/links";
import { formatDate, isPast } from "../../lib/format";
import { type Column, ListView, useListParams } from "../billing/list";
import { type LicenseKey, licenseKeyBenefitsQuery, licenseKeyQuery, licenseKeysQuery } from "./queries";
import type { LicenseKeySearch } from "./search";
import { isLicenseKeyStatus, LICENSE_KEY_STATUS_LABELS, LicenseKeyStatusBadge, usageText } from "./status";

/** The benefit filter in the address (`?benefit_id=`); a change goes back to page 1. */
function useBenefitFilter() {
  const { search } = useListParams();
  const navigate = useNavigate();
  const benefitId = (search as LicenseKeySearch).benefit_id ?? null;
  const setBenefitId = (id: string | null) =>
    void navigate({
      to: ".",
      // The license keys route's search (validateLicenseKeySearch keeps `benefit_id`).
      search: ((prev: LicenseKeySearch) => {
        const { page: _page, benefit_id: _benefit, ...rest } = prev;
        return id ? { ...rest, benefit_id: id } : rest;
      }) as never,
      replace: true,
    });
  return { benefitId, setBenefitId };
}

/**
 * How many devices use a key, of how many it may: the list does not say (Polar's
 * `LicenseKeyRead` has no count), so each key that takes activations reads its own, the same
 * read its detail view shows.
 */
function ActivationsCell({ organizationId, licenseKey }: { organizationId: string; licenseKey: LicenseKey }) {
  const takesActivations = licenseKey.limit_activations !== null;
  const detail = useQuery({
    ...licenseKeyQuery(organizationId, takesActivations ? licenseKey.id : ""),
    staleTime: 30_000,
  });
  if (!takesActivations)
    return (
      <Text size="sm" c="dimmed">
        Not used
      </Text>
    );
  return `${detail.data ? detail.data.activations.length : "…"} / ${licenseKey.limit_activations}`;
}

/** When a key expires: never, a date, or a date gone by (in red). */
export function ExpiryText({ expiresAt }: { expiresAt: string | null }) {
  if (!expiresAt) return "Never";
  if (isPast(expiresAt))
    return (
      <Text size="sm" c="red" span>
        Expired {formatDate(expiresAt)}
      </Text>
    );
  return formatDate(expiresAt);
}

/** A key's customer: the e-mail as a link to their page, the name below. */
export function CustomerCell({ slug, licenseKey }: { slug: string; licenseKey: LicenseKey }) {
  const { customer } = licenseKey;
  return (
    <Stack gap={0}>
      <AnchorLink
        to="/dashboard/$slug/customers/$customerId"
        params={{ slug, customerId: licenseKey.customer_id }}
        size="sm"
      >
        {customer.email || customer.name || licenseKey.customer_id}
      </AnchorLink>
      {customer.name && customer.email && (
        <Text size="xs" c="dimmed">
          {customer.name}
        </Text>
      )}
    </Stack>
  );
}

/**
 * The organization's license keys, filtered by benefit (`?benefit_id=`) and status from the
 * address, a page at a time. `onOpen` shows a key's detail.
 */
export function LicenseKeysTable({
  organizationId,
  slug,
  onOpen,
}: {
  organizationId: string;
  slug: string;
  onOpen: (key: LicenseKey) => void;
}) {
  const { search, set, page, limit } = useListParams();
  const { benefitId, setBenefitId } = useBenefitFilter();
  const status = isLicenseKeyStatus(search.status) ? search.status : null;
  const benefits = useQuery(licenseKeyBenefitsQuery(organizationId));
  const keys = useQuery(licenseKeysQuery(organizationId, { page, limit, benefit_id: benefitId, status }));
  const benefitName = new Map((benefits.data?.items ?? []).map((b) => [b.id, b.description]));
  const filtered = Boolean(benefitId || status);

  const columns: Column<LicenseKey>[] = [
    {
      label: "Key",
      render: (k) => (
        <Anchor
          component="button"
          ff="monospace"
          size="sm"
          onClick={() => onOpen(k)}
          aria-label={`License key ${k.display_key}`}
        >
          {k.display_key}
        </Anchor>
      ),
    },
    { label: "Customer", render: (k) => <CustomerCell slug={slug} licenseKey={k} /> },
    { label: "Benefit", render: (k) => benefitName.get(k.benefit_id) ?? "—" },
    { label: "Status", render: (k) => <LicenseKeyStatusBadge status={k.status} /> },
    { label: "Usage", render: (k) => usageText(k) },
    {
      label: "Activations",
      render: (k) => <ActivationsCell organizationId={organizationId} licenseKey={k} />,
    },
    { label: "Expires", render: (k) => <ExpiryText expiresAt={k.expires_at} /> },
    { label: "Created", render: (k) => formatDate(k.created_at) },
  ];

  return (
    <Stack gap="lg">
      <Group gap="md" align="flex-end">
        <Select
          label="Benefit"
          placeholder="Every benefit"
          clearable
          searchable
          data={(benefits.data?.items ?? []).map((b) => ({ value: b.id, label: b.description }))}
          value={benefitId}
          onChange={setBenefitId}
          w={280}
        />
        <Select
          label="Status"
          placeholder="Every status"
          clearable
          data={Object.entries(LICENSE_KEY_STATUS_LABELS).map(([value, label]) => ({ value, label }))}
          value={status}
          onChange={(v) => set({ status: v ?? undefined })}
          w={200}
        />
      </Group>
      <ListView
        query={keys}
        label="license keys"
        caption="License keys"
        empty={{
          icon: IconKey,
          title: filtered ? "No license key matches" : "No license keys yet",
          children: filtered
            ? "Change the filters to see more."
            : "License keys appear here when a customer buys a product with a license key benefit. Add one to a product on the Benefits page.",
        }}
        columns={columns}
      />
    </Stack>
  );
}
