import type { CreateOrganizationValues } from "@kassa/contracts/organization";
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CreateOrganizationForm } from "../src/features/organization/create-organization-form";
import type { ServerError } from "../src/lib/auth-client";
import { describedBy, renderWithTheme } from "./render";

const TAKEN: ServerError = { code: "ORGANIZATION_SLUG_ALREADY_TAKEN", message: "slug is taken", status: 400 };

function setup(options: { taken?: string[]; answer?: ServerError | null } = {}) {
  const checkSlug = vi.fn(async (slug: string) => ((options.taken ?? []).includes(slug) ? TAKEN : null));
  const onSubmit = vi.fn(async (_values: CreateOrganizationValues) => options.answer ?? null);
  const view = renderWithTheme(
    <CreateOrganizationForm checkSlug={checkSlug} onSubmit={onSubmit} checkDelay={150} />,
  );
  const name = () => screen.getByLabelText(/^Name/) as HTMLInputElement;
  const slug = () => screen.getByLabelText(/^Slug/) as HTMLInputElement;
  const submitButton = () => screen.getByRole("button", { name: "Create organization" }) as HTMLButtonElement;
  return { ...view, checkSlug, onSubmit, name, slug, submitButton };
}

describe("create-organization form", () => {
  it("derives the slug from the name and checks it once typing pauses", async () => {
    const { user, name, slug, checkSlug } = setup();
    await user.type(name(), "Ada's Café & Co");
    expect(slug().value).toBe("adas-cafe-co");
    await screen.findByText("adas-cafe-co is available.");
    // Debounced: not one check per keystroke, and the last one is for the slug in the field.
    expect(checkSlug.mock.calls.length).toBeLessThan(4);
    expect(checkSlug).toHaveBeenLastCalledWith("adas-cafe-co");
  });

  it("shows a taken slug at the slug field, in words for people, and does not submit it", async () => {
    const { user, name, slug, submitButton, onSubmit } = setup({ taken: ["acme"] });
    await user.type(name(), "Acme");
    await waitFor(() => expect(describedBy(slug())).toContain("This address is taken. Choose another one."));
    expect(slug().getAttribute("aria-invalid")).toBe("true");
    expect(submitButton().disabled).toBe(true);

    // Another slug, typed by hand, is checked again and the name no longer changes it.
    await user.clear(slug());
    await user.type(slug(), "acme-shop");
    await screen.findByText("acme-shop is available.");
    expect(submitButton().disabled).toBe(false);
    await user.type(name(), " Inc");
    expect(slug().value).toBe("acme-shop");
    await user.click(submitButton());
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ name: "Acme Inc", slug: "acme-shop" }));
  });

  it("refuses a malformed or reserved slug before asking the server", async () => {
    const { user, name, slug, submitButton, checkSlug, onSubmit } = setup();
    await user.type(name(), "Shop");
    await screen.findByText("shop is available.");
    checkSlug.mockClear();
    await user.clear(slug());
    await user.type(slug(), "Bad Slug!");
    await user.click(submitButton());
    await waitFor(() =>
      expect(describedBy(slug())).toContain(
        "Use lower-case letters, digits and single hyphens (e.g. my-shop).",
      ),
    );
    await user.clear(slug());
    await user.type(slug(), "new");
    await user.click(submitButton());
    await waitFor(() => expect(describedBy(slug())).toContain("This word is reserved. Choose another slug."));
    await new Promise((r) => setTimeout(r, 300));
    expect(checkSlug).not.toHaveBeenCalled();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("asks for a name", async () => {
    const { user, name, submitButton, onSubmit } = setup();
    await user.click(submitButton());
    await waitFor(() => expect(describedBy(name())).toContain("Enter a name."));
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("shows the server's refusal on create at the slug field", async () => {
    const { user, name, slug, submitButton } = setup({
      answer: { code: "ORGANIZATION_ALREADY_EXISTS", message: "Organization already exists", status: 400 },
    });
    await user.type(name(), "Acme");
    await screen.findByText("acme is available.");
    await user.click(submitButton());
    await waitFor(() =>
      expect(describedBy(slug())).toContain("An organization with this address already exists."),
    );
  });

  it("shows a refusal that concerns no field above the form", async () => {
    const { user, name, submitButton } = setup({
      answer: {
        code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
        message: "not allowed to create a new organization",
        status: 403,
      },
    });
    await user.type(name(), "Acme");
    await screen.findByText("acme is available.");
    await user.click(submitButton());
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Your account may not create organizations.");
  });
});
