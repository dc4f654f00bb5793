import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterProvider,
} from "@tanstack/react-router";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { LicenseKeyWithActivations } from "../src/features/license-keys/queries";
import { validateLicenseKeySearch } from "../src/features/license-keys/search";
import { sessionQuery } from "../src/lib/queries";
import { LicenseKeysPage } from "../src/routes/dashboard/billing/license-keys";
import { theme } from "../src/theme";
import { answerWith, type RecordedRequest, stubServer } from "./app";
import { customer, dashboardAnswers, page, session } from "./commerce-fixtures";
import { describedBy } from "./render";

/**
 * The license keys page (`/dashboard/{slug}/license-keys`) in a router of its own (the app's
 * route tree wires it elsewhere): the table, the benefit filter in the address, the status
 * changes behind a confirmation, and the limits form with the server's 422 at its field.
 */

const licenseKey: LicenseKeyWithActivations = {
  id: "lk-1",
  created_at: "2026-03-01T10:00:00Z",
  modified_at: null,
  organization_id: "org-1",
  customer_id: "cus-1",
  customer,
  benefit_id: "ben-1",
  key: "ACME-7D1C5E0A-0B9C-4A8E-9F51-2B6D3CABC123",
  display_key: "****-ABC123",
  status: "granted",
  limit_activations: 5,
  usage: 3,
  limit_usage: 100,
  validations: 12,
  last_validated_at: "2026-03-02T10:00:00Z",
  expires_at: null,
  activations: [
    {
      id: "act-1",
      license_key_id: "lk-1",
      label: "Ada's laptop",
      meta: { os: "linux" },
      created_at: "2026-03-01T11:00:00Z",
      modified_at: null,
    },
  ],
};
const { activations: _activations, ...listed } = licenseKey;

const answers = (
  role: "owner" | "member",
  patch: (r: RecordedRequest) => unknown = (r) => ({ ...listed, ...(r.body as object) }),
) => ({
  ...dashboardAnswers(role),
  "/v1/license-keys/": page([listed]),
  "GET /v1/license-keys/lk-1": licenseKey,
  "PATCH /v1/license-keys/lk-1": patch,
});

function renderPage(path: string) {
  const rootRoute = createRootRoute();
  const keysRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: "/dashboard/$slug/license-keys",
    validateSearch: validateLicenseKeySearch,
    component: LicenseKeysPage,
  });
  const customerRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: "/dashboard/$slug/customers/$customerId",
    component: () => <p>The customer's page</p>,
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(sessionQuery.queryKey, session);
  const router = createRouter({
    routeTree: rootRoute.addChildren([keysRoute, customerRoute]),
    history: createMemoryHistory({ initialEntries: [path] }),
  });
  const user = userEvent.setup({ delay: null });
  render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        {/* The app registers its own route tree's router type; this one has another tree. */}
        <RouterProvider router={router as never} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { user, router };
}

const keyRequests = (requests: RecordedRequest[]) =>
  requests.filter((r) => r.method === "GET" && r.path === "/v1/license-keys/");

/** Opens the key's drawer; resolves its dialog once the key loaded. */
async function openKey(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole("button", { name: "License key ****-ABC123" }));
  const drawer = await screen.findByRole("dialog", { name: "License key ****-ABC123" });
  await within(drawer).findByText(licenseKey.key);
  return drawer;
}

describe("license keys page", () => {
  it("lists the keys masked, with the customer's link, the benefit, usage and activations", async () => {
    const { requests } = stubServer(answers("owner"));
    renderPage("/dashboard/acme/license-keys");
    const table = await screen.findByRole("table", { name: "License keys" });
    expect(within(table).getByText("****-ABC123")).toBeTruthy();
    expect(within(table).queryByText(licenseKey.key)).toBeNull();
    const link = within(table).getByRole("link", { name: "ada@buyer.test" });
    expect(link.getAttribute("href")).toBe("/dashboard/acme/customers/cus-1");
    expect(within(table).getByText("Ada Buyer")).toBeTruthy();
    expect(await within(table).findByText("Pro license key")).toBeTruthy();
    expect(within(table).getByText("Granted")).toBeTruthy();
    expect(within(table).getByText("3 / 100")).toBeTruthy();
    expect(await within(table).findByText("1 / 5")).toBeTruthy();
    expect(within(table).getByText("Never")).toBeTruthy();
    const list = keyRequests(requests)[0];
    expect(list?.query.get("organization_id")).toBe("org-1");
    expect(list?.query.get("page")).toBe("1");
    expect(list?.query.has("benefit_id")).toBe(false);
  });

  it("sends the benefit of the address as benefit_id, and puts a chosen one in the address", async () => {
    const { requests } = stubServer(answers("owner"));
    const { user, router } = renderPage("/dashboard/acme/license-keys?benefit_id=ben-1");
    await screen.findByRole("table", { name: "License keys" });
    expect(keyRequests(requests).every((r) => r.query.get("benefit_id") === "ben-1")).toBe(true);

    // Cleared, then chosen again from the filter.
    await user.click(screen.getAllByLabelText("Benefit")[0]!);
    await user.click(await screen.findByRole("option", { name: "Pro license key" }));
    await waitFor(() => expect(router.state.location.search).toEqual({}));
    await waitFor(() => expect(keyRequests(requests).at(-1)?.query.has("benefit_id")).toBe(false));
    await user.click(screen.getAllByLabelText("Benefit")[0]!);
    await user.click(await screen.findByRole("option", { name: "Pro license key" }));
    await waitFor(() => expect(router.state.location.search).toEqual({ benefit_id: "ben-1" }));
    await waitFor(() => expect(keyRequests(requests).at(-1)?.query.get("benefit_id")).toBe("ben-1"));
  });

  it("says where keys come from when there are none", async () => {
    stubServer({ ...answers("owner"), "/v1/license-keys/": page([]) });
    renderPage("/dashboard/acme/license-keys");
    await screen.findByText("No license keys yet");
    expect(screen.getByText(/when a customer buys a product with a license key benefit/)).toBeTruthy();
  });

  it("asks before disabling a key, then sends status disabled", async () => {
    const { requests } = stubServer(answers("owner"));
    const { user } = renderPage("/dashboard/acme/license-keys");
    const drawer = await openKey(user);
    expect(within(drawer).getByText("Ada's laptop")).toBeTruthy();
    expect(within(drawer).getByText("os: linux")).toBeTruthy();
    await user.click(within(drawer).getByRole("button", { name: "Disable" }));
    const dialog = await screen.findByRole("dialog", { name: "Disable this license key?" });
    const patches = () => requests.filter((r) => r.method === "PATCH");
    expect(patches()).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Disable key" }));
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]?.path).toBe("/v1/license-keys/lk-1");
    expect(patches()[0]?.body).toEqual({ status: "disabled" });
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: "Disable this license key?" })).toBeNull(),
    );
  });

  it("shows a 422 on a limit at its field, having sent only what changed", async () => {
    const { requests } = stubServer(
      answers("owner", () =>
        answerWith(422, {
          error: "RequestValidationError",
          detail: [
            {
              type: "less_than_equal",
              loc: ["body", "limit_activations"],
              msg: "Input should be less than or equal to 2147483647",
              input: null,
            },
          ],
        }),
      ),
    );
    const { user } = renderPage("/dashboard/acme/license-keys");
    const drawer = await openKey(user);
    const limit = within(drawer).getByLabelText("Activation limit");
    fireEvent.change(limit, { target: { value: "10" } });
    await user.click(within(drawer).getByRole("button", { name: "Save limits" }));
    await waitFor(() =>
      expect(describedBy(limit)).toContain("Input should be less than or equal to 2147483647"),
    );
    expect(requests.filter((r) => r.method === "PATCH").map((r) => r.body)).toEqual([
      { limit_activations: 10 },
    ]);
  });

  it("a member sees the key and its activations but no action", async () => {
    stubServer(answers("member"));
    const { user } = renderPage("/dashboard/acme/license-keys");
    const drawer = await openKey(user);
    expect(within(drawer).getByText("Ada's laptop")).toBeTruthy();
    for (const name of ["Disable", "Revoke", "Save limits", "Deactivate Ada's laptop"])
      expect(within(drawer).queryByRole("button", { name })).toBeNull();
  });
});
