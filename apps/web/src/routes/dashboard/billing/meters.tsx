import { Switch } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling, useListParams } from "../../../features/billing/list";
import { ListPage, useEditor } from "../../../features/billing/list-page";
import { EditorModal } from "../../../features/billing/row-actions";
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
  const editor = useEditor<Meter>();

  return (
    <ListPage
      title="Meters"
      description="Meters turn the usage events you send into quantities that metered prices charge for."
      newAction={canWrite && { label: "New meter", onClick: editor.create }}
    >
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
        onEdit={editor.edit}
      />
      <EditorModal editor={editor} newTitle="New meter" editTitle="Edit meter" size="xl">
        {(meter) => <MeterForm meter={meter} organizationId={organizationId} onDone={editor.close} />}
      </EditorModal>
    </ListPage>
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
