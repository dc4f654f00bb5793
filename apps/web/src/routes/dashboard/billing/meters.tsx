import { Button, Modal, Stack, Switch } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { useBilling, useListParams } from "../../../features/billing/list";
import { MeterForm } from "../../../features/meters/meter-form";
import { MetersTable } from "../../../features/meters/meters-table";
import type { Meter } from "../../../lib/v1";

/** `/dashboard/{slug}/meters`: what usage is counted, and how. */
export function MetersPage() {
  const { organizationId, canWrite } = useBilling();
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
