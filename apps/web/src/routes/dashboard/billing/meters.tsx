import { Button, Modal, Stack, Switch } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { useBilling, useListParams } from "../../../features/billing/list";
import { MeterDetail } from "../../../features/meters/meter-detail";
import { MeterForm } from "../../../features/meters/meter-form";
import { MetersTable } from "../../../features/meters/meters-table";
import { meterQuery } from "../../../features/meters/queries";
import type { Meter } from "../../../lib/v1";

/** `/dashboard/{slug}/meters`: what usage is counted, and how. */
export function MetersPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { search, set } = useListParams();
  const archived = search.archived === true;
  const [editing, setEditing] = useState<Meter | "new" | null>(null);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Meters"
        description="Meters turn the usage events you send into quantities that metered prices charge for."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
              New meter
            </Button>
          )
        }
      />
      <Switch
        label="Show archived"
        checked={archived}
        onChange={(e) => set({ archived: e.currentTarget.checked ? true : undefined })}
      />
      <MetersTable
        organizationId={organizationId}
        slug={slug}
        canWrite={canWrite}
        archived={archived}
        onEdit={setEditing}
      />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === "new" ? "New meter" : "Edit meter"}
        size="xl"
      >
        {editing !== null && (
          <MeterForm
            key={editing === "new" ? "new" : editing.id}
            meter={editing === "new" ? undefined : editing}
            organizationId={organizationId}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
    </Stack>
  );
}

/** `/dashboard/{slug}/meters/{id}`: one meter's usage over a period and its customers' balances. */
export function MeterPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { meterId = "" } = useParams({ strict: false });
  const meter = useQuery(meterQuery(organizationId, meterId));
  if (meter.isPending) return <LoadingState label="Loading the meter" />;
  if (meter.isError) return <ErrorState error={meter.error} onRetry={() => void meter.refetch()} />;
  return <MeterDetail meter={meter.data} organizationId={organizationId} slug={slug} canWrite={canWrite} />;
}
