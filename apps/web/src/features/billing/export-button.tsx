import { Button } from "@mantine/core";
import { IconDownload } from "@tabler/icons-react";
import { type QueryValue, v1Url } from "../../lib/v1";

/**
 * "Export CSV": a link to a `/v1/.../export` with the list's filters. The session cookie
 * authenticates it, so the browser downloads the streamed file itself (under the server's
 * file name) instead of the page holding it all in memory first.
 */
export function ExportCsvButton({
  organizationId,
  resource,
  filters,
}: {
  organizationId: string;
  resource: "orders" | "subscriptions";
  filters: Record<string, QueryValue>;
}) {
  return (
    <Button
      component="a"
      href={v1Url(organizationId, `/${resource}/export`, filters)}
      download
      variant="default"
      leftSection={<IconDownload size={16} aria-hidden />}
      ml="auto"
    >
      Export CSV
    </Button>
  );
}
