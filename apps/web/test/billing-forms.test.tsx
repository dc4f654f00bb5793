import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { answerWith, renderApp, stubServer } from "./app";
import { dashboardAnswers, page, session } from "./commerce-fixtures";
import { describedBy } from "./render";

/**
 * The billing forms (react-hook-form on the request schemas of `@kassa/contracts/v1`): the
 * contract's rules checked before sending, the body sent, and a server's 422 at its field.
 */
const slow = { timeout: 8000 };

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
