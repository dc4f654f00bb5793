import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { answerWith, renderApp, stubServer } from "./app";
import { dashboardAnswers, page, session } from "./commerce-fixtures";
import { describedBy, slow } from "./render";

/**
 * The billing forms (react-hook-form on the request schemas of `@kassa/contracts/v1`): the
 * contract's rules checked before sending, the body sent, and a server's 422 at its field.
 */

const unprocessable = (loc: (string | number)[], msg: string) =>
  answerWith(422, {
    error: "RequestValidationError",
    detail: [{ type: "value_error", loc, msg, input: null }],
  });

describe("discount form", () => {
  it("checks the contract's rules, sends cents and basis points, and puts a 422 at its field", async () => {
    let refuse = true;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/discounts/": (r: { method: string }) =>
        r.method === "POST"
          ? refuse
            ? unprocessable(["body", "basis_points"], "Too generous.")
            : { id: "d-1" }
          : page([]),
    });
    const { user } = renderApp("/dashboard/acme/discounts", { session });
    await user.click(await screen.findByRole("button", { name: "New discount" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New discount" });
    const code = within(dialog).getByLabelText("Code");
    await user.type(code, "no spaces!");
    await user.click(within(dialog).getByRole("button", { name: "Create discount" }));
    // The contract's rules: a name, a code of letters, and a percentage.
    await waitFor(() => expect(describedBy(code)).toContain("Only letters, digits, dashes and underscores"));
    expect(describedBy(within(dialog).getByLabelText(/^Name/))).not.toBe("");
    expect(describedBy(within(dialog).getByLabelText(/^Percent off/))).toContain("basis_points");
    expect(requests.some((r) => r.method === "POST" && r.path.startsWith("/v1/"))).toBe(false);

    await user.type(within(dialog).getByLabelText(/^Name/), "Launch");
    await user.clear(code);
    await user.type(code, "LAUNCH");
    const percent = within(dialog).getByLabelText(/^Percent off/);
    await user.type(percent, "20");
    await user.click(within(dialog).getByRole("button", { name: "Create discount" }));
    await waitFor(() => expect(describedBy(percent)).toContain("Too generous."));
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      name: "Launch",
      code: "LAUNCH",
      type: "percentage",
      basis_points: 2000,
      duration: "once",
      duration_in_months: null,
      starts_at: null,
      ends_at: null,
      max_redemptions: null,
      products: [],
    });

    refuse = false;
    await user.click(within(dialog).getByRole("button", { name: "Create discount" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New discount" })).toBeNull());
  });

  it("a refusal about no field of the form is the form's alert", async () => {
    stubServer({
      ...dashboardAnswers("owner"),
      "/v1/discounts/": (r: { method: string }) =>
        r.method === "POST"
          ? answerWith(403, { error: "NotPermitted", detail: "Your role may not create discounts." })
          : page([]),
    });
    const { user } = renderApp("/dashboard/acme/discounts", { session });
    await user.click(await screen.findByRole("button", { name: "New discount" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New discount" });
    await user.type(within(dialog).getByLabelText(/^Name/), "Launch");
    await user.type(within(dialog).getByLabelText(/^Percent off/), "10");
    await user.click(within(dialog).getByRole("button", { name: "Create discount" }));
    const alert = await within(dialog).findByRole("alert");
    expect(alert.textContent).toContain("Your role may not create discounts.");
  });
});

describe("custom field form", () => {
  it("fills the slug from the name, checks a choice list by the contract, sends the type's properties", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/custom-fields/": (r: { method: string }) =>
        r.method === "POST" ? unprocessable(["body", "slug"], "This slug is taken.") : page([]),
    });
    const { user } = renderApp("/dashboard/acme/custom-fields", { session });
    await user.click(await screen.findByRole("button", { name: "New field" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New custom field" });
    await user.click(within(dialog).getAllByLabelText(/^Type/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Choice list" }));
    await user.type(within(dialog).getByLabelText(/^Name/), "Company size");
    const slug = within(dialog).getByLabelText(/^Slug/) as HTMLInputElement;
    expect(slug.value).toBe("company_size");
    await user.click(within(dialog).getByRole("button", { name: "Create field" }));
    // The contract wants at least one choice.
    await waitFor(() => expect(within(dialog).getByText(/at least 1|>=1/)).toBeTruthy());
    expect(requests.some((r) => r.method === "POST" && r.path.startsWith("/v1/"))).toBe(false);

    await user.click(within(dialog).getByRole("button", { name: "Add a choice" }));
    await user.type(within(dialog).getByLabelText("Choice 1 value"), "small");
    await user.type(within(dialog).getByLabelText("Choice 1 label"), "1 to 10");
    await user.type(within(dialog).getByLabelText("Label at checkout"), "Your company's size");
    await user.click(within(dialog).getByRole("button", { name: "Create field" }));
    await waitFor(() => expect(describedBy(slug)).toContain("This slug is taken."));
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      type: "select",
      name: "Company size",
      slug: "company_size",
      properties: { form_label: "Your company's size", options: [{ value: "small", label: "1 to 10" }] },
    });
  });
});

describe("meter form", () => {
  it("the filter builder's words at the clause, the contract's at the name; sends the aggregation", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/": (r: { method: string }) => (r.method === "POST" ? { id: "m-1" } : page([])),
    });
    const { user } = renderApp("/dashboard/acme/meters", { session });
    await user.click(await screen.findByRole("button", { name: "New meter" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New meter" });
    const name = within(dialog).getByLabelText(/^Name/);
    await user.type(name, "AP");
    await user.click(within(dialog).getByRole("button", { name: "Add a condition" }));
    await user.click(within(dialog).getByRole("button", { name: "Create meter" }));
    const condition = within(dialog).getByRole("group", { name: "Condition 1" });
    await waitFor(() =>
      expect(describedBy(within(condition).getByLabelText("Property"))).toContain("Name the event property."),
    );
    expect(describedBy(name)).toMatch(/3/);
    expect(requests.some((r) => r.method === "POST" && r.path.startsWith("/v1/"))).toBe(false);

    await user.type(name, "I requests");
    await user.type(within(condition).getByLabelText("Property"), "name");
    await user.type(within(condition).getByRole("textbox", { name: "Value" }), "api_call");
    await user.click(within(dialog).getByRole("button", { name: "Create meter" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New meter" })).toBeNull());
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      name: "API requests",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
      aggregation: { func: "count" },
    });
  });
});

describe("meter form: unarchiving", () => {
  it("an archived meter's editor offers Unarchive meter; it sends is_archived false at once and the list shows it active", async () => {
    const meter = {
      id: "meter-1",
      created_at: "2026-03-01T10:00:00Z",
      modified_at: null,
      name: "API calls",
      unit: "scalar",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
      metadata: {},
      archived_at: "2026-03-02T10:00:00Z",
    };
    let archived = true;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/events/": page([]),
      "/v1/meters/": () => page([{ ...meter, archived_at: archived ? meter.archived_at : null }]),
      "PATCH /v1/meters/meter-1": () => {
        archived = false;
        return { ...meter, archived_at: null };
      },
    });
    const { user } = renderApp("/dashboard/acme/meters?archived=true", { session });
    const table = await screen.findByRole("table", { name: "Meters" }, slow);
    expect(within(table).getByText("Archived")).toBeTruthy();
    await user.click(within(table).getByRole("button", { name: "Edit API calls" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit meter" });
    expect(within(dialog).queryByRole("button", { name: "Archive meter" })).toBeNull();
    await user.click(within(dialog).getByRole("button", { name: "Unarchive meter" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Edit meter" })).toBeNull());
    expect(requests.filter((r) => r.method === "PATCH").map((r) => [r.path, r.body])).toEqual([
      ["/v1/meters/meter-1", { is_archived: false }],
    ]);
    await waitFor(() =>
      expect(within(screen.getByRole("table", { name: "Meters" })).getByText("Active")).toBeTruthy(),
    );
    expect(within(screen.getByRole("table", { name: "Meters" })).queryByText("Archived")).toBeNull();
  });
});

describe("benefit form", () => {
  it("uploads a downloadables benefit's files through the files API and sends their ids", async () => {
    const uploadUrl = "http://localhost:3000/storage/uploads/u-1/1?expires=1&signature=s";
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/benefits/": (r: { method: string }) => (r.method === "POST" ? { id: "b-2" } : page([])),
      "POST /v1/files/": {
        id: "0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b",
        upload: {
          id: "u-1",
          path: "org/0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b",
          parts: [{ number: 1, url: uploadUrl }],
        },
      },
      "PUT /storage/uploads/u-1/1": () => new Response(null, { status: 200, headers: { etag: '"abc"' } }),
      "POST /v1/files/0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b/uploaded": {
        id: "0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b",
        is_uploaded: true,
      },
    });
    const { user } = renderApp("/dashboard/acme/benefits", { session });
    await user.click(await screen.findByRole("button", { name: "New benefit" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New benefit" });
    await user.click(within(dialog).getAllByLabelText(/^Kind/)[0]!);
    await user.click(await screen.findByRole("option", { name: "File downloads" }));
    await user.type(within(dialog).getByLabelText(/^Description/), "The album");
    const picker = dialog.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(picker, new File(["the bytes"], "album.zip", { type: "application/zip" }));
    const files = within(dialog).getByLabelText(/^Files/) as HTMLTextAreaElement;
    await waitFor(() => expect(files.value).toBe("0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b"));
    expect(requests.find((r) => r.method === "POST" && r.path === "/v1/files/")?.body).toEqual({
      name: "album.zip",
      mime_type: "application/zip",
      size: 9,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 9 }] },
      service: "downloadable",
    });
    expect(requests.find((r) => r.method === "PUT")?.body).toBe("the bytes");
    expect(
      requests.find((r) => r.path === "/v1/files/0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b/uploaded")?.body,
    ).toEqual({
      id: "u-1",
      path: "org/0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b",
      parts: [{ number: 1, checksum_etag: '"abc"', checksum_sha256_base64: null }],
    });
    await user.click(within(dialog).getByRole("button", { name: "Create benefit" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New benefit" })).toBeNull());
    expect(requests.find((r) => r.method === "POST" && r.path === "/v1/benefits/")?.body).toEqual({
      type: "downloadables",
      description: "The album",
      properties: { files: ["0b4d2f1e-8c3a-4e6f-9a7b-1c2d3e4f5a6b"], archived: {} },
    });
  });

  it("checks the description by the contract and sends the license-key properties", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/benefits/": (r: { method: string }) => (r.method === "POST" ? { id: "b-1" } : page([])),
    });
    const { user } = renderApp("/dashboard/acme/benefits", { session });
    await user.click(await screen.findByRole("button", { name: "New benefit" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New benefit" });
    const description = within(dialog).getByLabelText(/^Description/);
    await user.type(description, "De");
    await user.click(within(dialog).getByRole("button", { name: "Create benefit" }));
    await waitFor(() => expect(describedBy(description)).toMatch(/3/));
    expect(requests.some((r) => r.method === "POST" && r.path.startsWith("/v1/"))).toBe(false);

    await user.type(description, "sktop license");
    await user.type(within(dialog).getByLabelText("Key prefix"), "METER");
    await user.click(within(dialog).getByRole("switch", { name: "Limit activations" }));
    await user.click(within(dialog).getByRole("button", { name: "Create benefit" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New benefit" })).toBeNull());
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      type: "license_keys",
      description: "Desktop license",
      properties: {
        prefix: "METER",
        expires: null,
        activations: { limit: 1, enable_customer_admin: false },
        limit_usage: null,
      },
    });
  });
});
