import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ApiReferenceLink } from "../../../components/links";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { ListPage } from "../../../features/billing/list-page";
import { OnceSecret } from "../../../features/billing/once-secret";
import { FormModal } from "../../../features/billing/row-actions";
import { EndpointDetail } from "../../../features/webhooks/endpoint-detail";
import { EndpointForm } from "../../../features/webhooks/endpoint-forms";
import { EndpointsTable } from "../../../features/webhooks/endpoints-table";
import { endpointQuery } from "../../../features/webhooks/queries";
import type { WebhookEndpoint } from "../../../lib/v1";

/** `/dashboard/{slug}/settings/webhooks`: the endpoints Kassa sends signed events to. */
export function WebhooksPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const [creating, { open, close }] = useDisclosure(false);
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);

  return (
    <ListPage
      title="Webhooks"
      description={
        <>
          Kassa POSTs signed events (Standard Webhooks) to these addresses as things happen. The{" "}
          <ApiReferenceLink /> describes each event's payload.
        </>
      }
      newAction={canWrite && { label: "Add endpoint", onClick: open }}
    >
      {created && (
        <OnceSecret label={`Signing secret of ${created.name ?? created.url}`} value={created.secret} />
      )}
      <EndpointsTable organizationId={organizationId} canWrite={canWrite} slug={slug} />
      <FormModal opened={creating} onClose={close} title="Add a webhook endpoint">
        <EndpointForm
          organizationId={organizationId}
          onDone={(e) => {
            close();
            setCreated(e);
          }}
        />
      </FormModal>
    </ListPage>
  );
}

/** `/dashboard/{slug}/settings/webhooks/{id}`: one endpoint, its secret, its deliveries, replay. */
export function WebhookEndpointPage() {
  const { endpointId = "" } = useParams({ strict: false }) as { endpointId?: string };
  const { organizationId, canWrite, slug } = useBilling();
  const endpoint = useQuery(endpointQuery(organizationId, endpointId));
  if (endpoint.isPending) return <LoadingState label="Loading the endpoint" />;
  if (endpoint.isError) return <ErrorState error={endpoint.error} onRetry={() => void endpoint.refetch()} />;
  return (
    <EndpointDetail
      endpoint={endpoint.data}
      organizationId={organizationId}
      canWrite={canWrite}
      slug={slug}
    />
  );
}
