import type { SignUpValues } from "@kassa/contracts";
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { SignUpForm } from "../src/features/auth/sign-up-form";
import type { ServerError } from "../src/lib/auth-client";
import { describedBy, renderWithTheme } from "./render";

const rules = { password: { min: 10, max: 20 }, username: { min: 3, max: 12 } };

function setup(answer: ServerError | null = null) {
  const onSubmit = vi.fn(async (_values: SignUpValues) => answer);
  const view = renderWithTheme(<SignUpForm rules={rules} onSubmit={onSubmit} />);
  const field = (label: RegExp) => screen.getByLabelText(label);
  const fill = async (values: Partial<SignUpValues>) => {
    for (const [name, label] of [
      ["name", /^Name/],
      ["email", /^E-mail/],
      ["username", /^Username/],
      ["password", /^Password/],
    ] as const) {
      const value = values[name];
      if (value) await view.user.type(field(label), value);
    }
  };
  const submit = () => view.user.click(screen.getByRole("button", { name: "Create account" }));
  return { ...view, onSubmit, field, fill, submit };
}

describe("sign-up form", () => {
  it("shows the server's password length rules", () => {
    const { field } = setup();
    expect(describedBy(field(/^Password/))).toContain("10 to 20 characters.");
    expect(describedBy(field(/^Username/))).toContain(
      "Optional. 3 to 12 letters, digits, underscores or dots.",
    );
  });

  it("refuses a password shorter than the server's minimum before sending anything", async () => {
    const { fill, submit, field, onSubmit } = setup();
    await fill({ name: "Ada", email: "ada@example.com", password: "short" });
    await submit();
    await waitFor(() => expect(describedBy(field(/^Password/))).toContain("Use at least 10 characters."));
    expect(field(/^Password/).getAttribute("aria-invalid")).toBe("true");
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("refuses a password longer than the server's maximum", async () => {
    const { fill, submit, field, onSubmit } = setup();
    await fill({ name: "Ada", email: "ada@example.com", password: "x".repeat(21) });
    await submit();
    await waitFor(() => expect(describedBy(field(/^Password/))).toContain("Use at most 20 characters."));
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("checks the e-mail address, the name and the username's characters", async () => {
    const { fill, submit, field, onSubmit } = setup();
    await fill({ email: "not-an-address", username: "ada lovelace", password: "a long password" });
    await submit();
    await waitFor(() => expect(describedBy(field(/^E-mail/))).toContain("Enter a valid e-mail address."));
    expect(describedBy(field(/^Name/))).toContain("Enter your name.");
    expect(describedBy(field(/^Username/))).toContain("Use only letters, digits, underscores and dots.");
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("sends the values, the username left out when empty", async () => {
    const { fill, submit, onSubmit } = setup();
    await fill({ name: "Ada", email: "ada@example.com", password: "a long password" });
    await submit();
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toEqual({
      name: "Ada",
      email: "ada@example.com",
      username: "",
      password: "a long password",
    });
  });

  it("shows the server's refusal of the e-mail address at the e-mail field, in words for people", async () => {
    const { fill, submit, field } = setup({
      code: "USER_ALREADY_EXISTS",
      message: "user already exists",
      status: 422,
    });
    await fill({ name: "Ada", email: "ada@example.com", password: "a long password" });
    await submit();
    await waitFor(() =>
      expect(describedBy(field(/^E-mail/))).toContain("An account with this e-mail address already exists."),
    );
    expect(field(/^E-mail/).getAttribute("aria-invalid")).toBe("true");
    expect(describedBy(field(/^Password/))).not.toContain("already exists");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows the server's refusal of the username at the username field", async () => {
    const { fill, submit, field } = setup({
      code: "USERNAME_IS_ALREADY_TAKEN",
      message: "username is already taken",
      status: 400,
    });
    await fill({ name: "Ada", email: "ada@example.com", username: "ada", password: "a long password" });
    await submit();
    await waitFor(() => expect(describedBy(field(/^Username/))).toContain("This username is taken."));
  });

  it("shows a refusal that concerns no field above the form", async () => {
    const { fill, submit } = setup({ status: 429 });
    await fill({ name: "Ada", email: "ada@example.com", password: "a long password" });
    await submit();
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Too many attempts. Wait a minute, then try again.");
  });
});
