import { Drawer } from "@mantine/core";
import { useBilling } from "../../../features/billing/list";
import { ListPage, useRowDialog } from "../../../features/billing/list-page";
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
  const viewing = useRowDialog<LicenseKey>();
  return (
    <ListPage
      title="License keys"
      description="The keys your license key benefits granted: who has each, its usage, activations and expiry."
    >
      <LicenseKeysTable organizationId={organizationId} slug={slug} onOpen={viewing.open} />
      <Drawer
        opened={viewing.row !== null}
        onClose={viewing.close}
        position="right"
        size="xl"
        title={viewing.row ? `License key ${viewing.row.display_key}` : ""}
      >
        {viewing.row && (
          <LicenseKeyDetail
            key={viewing.row.id}
            organizationId={organizationId}
            keyId={viewing.row.id}
            slug={slug}
            canWrite={canWrite}
          />
        )}
      </Drawer>
    </ListPage>
  );
}
