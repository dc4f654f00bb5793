import type { SignInValues } from "@kassa/contracts";
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { SignInForm } from "../src/features/auth/sign-in-form";
import type { ServerError } from "../src/lib/auth-client";
import { describedBy, renderWithTheme } from "./render";

function setup(answer: ServerError | null = null) {
  const onSubmit = vi.fn(async (_values: SignInValues) => answer);
  const view = renderWithTheme(<SignInForm onSubmit={onSubmit} />);
  const identifier = () => screen.getByLabelText(/^E-mail or username/);
  const password = () => screen.getByLabelText(/^Password/);
  const submit = () => view.user.click(screen.getByRole("button", { name: "Sign in" }));
  return { ...view, onSubmit, identifier, password, submit };
}

describe("sign-in form", () => {
  it("asks for both fields before sending anything", async () => {
    const { submit, identifier, password, onSubmit } = setup();
    await submit();
    await waitFor(() =>
      expect(describedBy(identifier())).toContain("Enter your e-mail address or username."),
    );
    expect(describedBy(password())).toContain("Enter your password.");
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("accepts a username as well as an e-mail address in one field", async () => {
    const { user, submit, identifier, password, onSubmit } = setup();
    await user.type(identifier(), "ada_l");
    await user.type(password(), "a long password");
    await submit();
    await waitFor(() =>
      expect(onSubmit).toHaveBeenCalledWith({ identifier: "ada_l", password: "a long password" }),
    );
  });

  it("shows the server's refusal at the password field, in a sentence for people", async () => {
    const { user, submit, identifier, password } = setup({
      code: "INVALID_EMAIL_OR_PASSWORD",
      message: "invalid email or password",
      status: 401,
    });
    await user.type(identifier(), "ada@example.com");
    await user.type(password(), "wrong password");
    await submit();
    await waitFor(() => expect(describedBy(password())).toContain("The e-mail or password is not right."));
    expect(password().getAttribute("aria-invalid")).toBe("true");
    expect(describedBy(identifier())).not.toContain("The e-mail or password is not right.");
  });

  it("shows a network failure above the form", async () => {
    const { user, submit, identifier, password } = setup({ status: 0 });
    await user.type(identifier(), "ada@example.com");
    await user.type(password(), "a long password");
    await submit();
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The server could not be reached.");
  });
});
