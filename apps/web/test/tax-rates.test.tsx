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
import type { TaxRate } from "../src/features/tax-rates/queries";
import { validateListSearch } from "../src/lib/list-search";
import { sessionQuery } from "../src/lib/queries";
import { TaxRatesPage } from "../src/routes/dashboard/billing/tax-rates";
import { theme } from "../src/theme";
import { answerWith, type RecordedRequest, stubServer } from "./app";
import { dashboardAnswers, page, session } from "./commerce-fixtures";
import { describedBy, slow } from "./render";

/**
 * The tax rates page (`/v1/tax-rates/`): the table of rates, the editor's body and a 422 at its
 * field, and a delete only once confirmed. The page is mounted at its address in a router of
 * its own (the app's route tree adds it separately), with the dashboard's answers stubbed.
 */

const PATH = "/dashboard/acme/settings/tax-rates";

function renderTaxRatesPage() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(sessionQuery.queryKey, session);
  const rootRoute = createRootRoute();
  const pageRoute = createRoute({
    getParentRoute: () => rootRoute,
    path: "/dashboard/$slug/settings/tax-rates",
    validateSearch: validateListSearch,
    component: TaxRatesPage,
  });
  const router = createRouter({
    routeTree: rootRoute.addChildren([pageRoute]),
    history: createMemoryHistory({ initialEntries: [PATH] }),
  });
  const user = userEvent.setup({ delay: null });
  const view = render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        {/* The app registers its own route tree's router type; this one has another tree. */}
        <RouterProvider router={router as never} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { ...view, user, router };
}

const rate = (overrides: Partial<TaxRate> = {}): TaxRate => ({
  id: "tr-1",
  created_at: "2026-03-01T10:00:00Z",
  modified_at: null,
  organization_id: "org-1",
  country: "US",
  rate: "8.875",
  display_name: "Sales tax",
  ...overrides,
});

const rates = [rate(), rate({ id: "tr-2", country: "FR", rate: "20", display_name: null })];

const unprocessable = (loc: (string | number)[], msg: string) =>
  answerWith(422, {
    error: "RequestValidationError",
    detail: [{ type: "value_error", loc, msg, input: null }],
  });

const writes = (requests: RecordedRequest[]) =>
  requests.filter((r) => r.method !== "GET" && r.path.startsWith("/v1/tax-rates/"));

describe("tax rates page", () => {
  it("shows each rate of the API's answer: country, name, exact percentage", async () => {
    const { requests } = stubServer({ ...dashboardAnswers("owner"), "/v1/tax-rates/": page(rates) });
    renderTaxRatesPage();
    const table = await screen.findByRole("table", { name: "Tax rates" }, slow);
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain("United States (US)");
    expect(rows[0]!.textContent).toContain("Sales tax");
    expect(rows[0]!.textContent).toContain("8.875%");
    expect(rows[1]!.textContent).toContain("France (FR)");
    expect(rows[1]!.textContent).toContain("20%");
    expect(rows[1]!.textContent).toContain("none");
    const list = requests.find((r) => r.path === "/v1/tax-rates/");
    expect(list?.query.get("organization_id")).toBe("org-1");
    // Whoever may write billing gets the write actions.
    expect(screen.getByRole("button", { name: "New tax rate" })).toBeTruthy();
    expect(within(table).getByRole("button", { name: "Delete the tax rate of France (FR)" })).toBeTruthy();
  });

  it("hides the write actions from a member who may only read billing", async () => {
    stubServer({ ...dashboardAnswers("member"), "/v1/tax-rates/": page(rates) });
    renderTaxRatesPage();
    const table = await screen.findByRole("table", { name: "Tax rates" }, slow);
    expect(within(table).getByText("United States (US)")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "New tax rate" })).toBeNull();
    expect(within(table).queryAllByRole("button", { name: /Delete|United States/ })).toEqual([]);
  });

  it("says what a tax rate does when there is none", async () => {
    stubServer({ ...dashboardAnswers("owner"), "/v1/tax-rates/": page([]) });
    renderTaxRatesPage();
    expect(await screen.findByText("No tax rates yet", {}, slow)).toBeTruthy();
    expect(screen.getByText(/adds a percentage of the net amount/).textContent).toContain("New tax rate");
  });
});

describe("tax rate form", () => {
  it("sends the country, the exact rate and the name, and puts a 422 at its field", async () => {
    let refuse = true;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/tax-rates/": (r: RecordedRequest) =>
        r.method === "POST"
          ? refuse
            ? unprocessable(["body", "country"], "A tax rate for this country already exists.")
            : answerWith(201, rate())
          : page([]),
    });
    const { user } = renderTaxRatesPage();
    await user.click(await screen.findByRole("button", { name: "New tax rate" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New tax rate" });
    const country = within(dialog).getAllByLabelText(/^Country/)[0]!;
    const percent = within(dialog).getByLabelText(/^Rate/);
    await user.click(within(dialog).getByRole("button", { name: "Create tax rate" }));
    // The form's own words for what is missing; nothing is sent.
    await waitFor(() => expect(describedBy(country)).toContain("Choose the country"));
    expect(describedBy(percent)).toContain("Enter the rate as a percentage");
    // The contract's rule on the rate (at most 4 decimals), still before sending.
    // Typed values are set at once (fireEvent): key by key, the form's re-renders took most of a
    // loaded machine's 30 s.
    fireEvent.change(percent, { target: { value: "8.12345" } });
    await user.click(within(dialog).getByRole("button", { name: "Create tax rate" }));
    await waitFor(() => expect(describedBy(percent)).toContain("The rate must be a percentage"));
    expect(writes(requests)).toEqual([]);

    await user.click(country);
    await user.paste("United St");
    await user.click(await screen.findByRole("option", { name: "United States" }));
    fireEvent.change(percent, { target: { value: "8,875" } });
    fireEvent.change(within(dialog).getByLabelText(/^Name/), { target: { value: " Sales tax " } });
    await user.click(within(dialog).getByRole("button", { name: "Create tax rate" }));
    await waitFor(() =>
      expect(describedBy(country)).toContain("A tax rate for this country already exists."),
    );
    expect(describedBy(percent)).not.toContain("The rate must be");
    expect(writes(requests)).toHaveLength(1);
    expect(writes(requests)[0]).toMatchObject({
      method: "POST",
      path: "/v1/tax-rates/",
      body: { country: "US", rate: "8.875", display_name: "Sales tax" },
    });
    expect(Object.keys(writes(requests)[0]!.body as object).sort()).toEqual([
      "country",
      "display_name",
      "rate",
    ]);

    refuse = false;
    await user.click(within(dialog).getByRole("button", { name: "Create tax rate" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New tax rate" })).toBeNull());
  });

  it("edits only the rate and the name (the country is fixed), an emptied name as none", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/tax-rates/": page(rates),
      "/v1/tax-rates/tr-1": (r: RecordedRequest) =>
        r.method === "PATCH" ? unprocessable(["body", "rate"], "Too high for this country.") : rate(),
    });
    const { user } = renderTaxRatesPage();
    await user.click(await screen.findByRole("button", { name: "United States (US)" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Edit tax rate" });
    expect((within(dialog).getByLabelText(/^Country/) as HTMLInputElement).disabled).toBe(true);
    const percent = within(dialog).getByLabelText(/^Rate/) as HTMLInputElement;
    expect(percent.value).toBe("8.875");
    fireEvent.change(percent, { target: { value: "9" } });
    fireEvent.change(within(dialog).getByLabelText(/^Name/), { target: { value: "" } });
    await user.click(within(dialog).getByRole("button", { name: "Save tax rate" }));
    await waitFor(() => expect(describedBy(percent)).toContain("Too high for this country."));
    expect(writes(requests)).toEqual([
      expect.objectContaining({
        method: "PATCH",
        path: "/v1/tax-rates/tr-1",
        body: { rate: "9", display_name: null },
      }),
    ]);
  });
});

describe("deleting a tax rate", () => {
  it("asks first, sends nothing when cancelled, then DELETE once confirmed", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/tax-rates/": page(rates),
      "DELETE /v1/tax-rates/tr-2": () => new Response(null, { status: 204 }),
    });
    const { user } = renderTaxRatesPage();
    const table = await screen.findByRole("table", { name: "Tax rates" }, slow);
    const remove = within(table).getByRole("button", { name: "Delete the tax rate of France (FR)" });

    await user.click(remove);
    let dialog = await screen.findByRole("dialog", { name: "Delete this tax rate?" });
    expect(dialog.textContent).toContain("France (FR)");
    expect(dialog.textContent).toContain("20%");
    expect(writes(requests)).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Delete this tax rate?" })).toBeNull());
    expect(writes(requests)).toEqual([]);

    await user.click(remove);
    dialog = await screen.findByRole("dialog", { name: "Delete this tax rate?" });
    await user.click(within(dialog).getByRole("button", { name: "Delete tax rate" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Delete this tax rate?" })).toBeNull());
    expect(writes(requests).map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /v1/tax-rates/tr-2"]);
    // The list is read again after the delete.
    await waitFor(() =>
      expect(requests.filter((r) => r.path === "/v1/tax-rates/").length).toBeGreaterThan(1),
    );
  });
});
