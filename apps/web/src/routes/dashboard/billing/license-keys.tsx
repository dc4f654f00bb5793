import { Drawer, Stack } from "@mantine/core";
import { useState } from "react";
import { PageHeader } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { LicenseKeyDetail } from "../../../features/license-keys/license-key-detail";
import { LicenseKeysTable } from "../../../features/license-keys/license-keys-table";
import type { LicenseKey } from "../../../features/license-keys/queries";

/**
 * `/dashboard/{slug}/license-keys`: the keys the organization's license key benefits granted,
 * filtered by benefit (`?benefit_id=`) and status from the address; a key opens in a drawer
 * with its activations and, for members who may write, its status and limits.
 */
export function LicenseKeysPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const [viewing, setViewing] = useState<LicenseKey | null>(null);
  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="License keys"
        description="The keys your license key benefits granted: who has each, its usage, activations and expiry."
      />
      <LicenseKeysTable organizationId={organizationId} slug={slug} onOpen={setViewing} />
      <Drawer
        opened={viewing !== null}
        onClose={() => setViewing(null)}
        position="right"
        size="xl"
        title={viewing ? `License key ${viewing.display_key}` : ""}
      >
        {viewing && (
          <LicenseKeyDetail
            key={viewing.id}
            organizationId={organizationId}
            keyId={viewing.id}
            slug={slug}
            canWrite={canWrite}
          />
        )}
      </Drawer>
    </Stack>
  );
}
