import { banExpiresInSeconds } from "@kassa/contracts";
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { BanUserForm, CreateUserForm, SetPasswordForm } from "../src/features/admin/admin-forms";
import type { ServerError } from "../src/lib/auth-client";
import { describedBy, renderWithTheme } from "./render";

const rules = { password: { min: 10, max: 20 }, username: { min: 3, max: 12 } };
const field = (label: RegExp) => screen.getByLabelText(label);

describe("admin forms", () => {
  it("create user: checks the fields, then shows a taken address at the e-mail field", async () => {
    const refusal: ServerError = { code: "USER_ALREADY_EXISTS", message: "user already exists", status: 400 };
    const onSubmit = vi.fn(async () => refusal);
    const { user } = renderWithTheme(<CreateUserForm rules={rules} onSubmit={onSubmit} />);
    await user.click(screen.getByRole("button", { name: "Create user" }));
    await waitFor(() => expect(describedBy(field(/^E-mail/))).toContain("Enter a valid e-mail address."));
    expect(describedBy(field(/^Password/))).toContain("Enter a password.");
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(field(/^Name/), "Bob");
    await user.type(field(/^E-mail/), "bob@example.com");
    await user.type(field(/^Password/), "a long password");
    await user.selectOptions(field(/^Role/), "admin");
    await user.click(screen.getByRole("button", { name: "Create user" }));
    await waitFor(() =>
      expect(describedBy(field(/^E-mail/))).toContain("An account with this e-mail address already exists."),
    );
    expect(onSubmit).toHaveBeenCalledWith({
      name: "Bob",
      email: "bob@example.com",
      password: "a long password",
      role: "admin",
    });
  });

  it("ban: sends the reason and the chosen length", async () => {
    const onSubmit = vi.fn(async () => null);
    const { user } = renderWithTheme(<BanUserForm onSubmit={onSubmit} />);
    await user.type(field(/^Reason/), "spam");
    await user.selectOptions(field(/^Ban for/), "30");
    await user.click(screen.getByRole("button", { name: "Ban user" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ reason: "spam", expiresIn: "30" }));
    expect(banExpiresInSeconds("30")).toBe(30 * 86400);
    expect(banExpiresInSeconds("never")).toBeUndefined();
  });

  it("ban: shows the server's refusal above the form", async () => {
    const refusal: ServerError = {
      code: "YOU_CANNOT_BAN_YOURSELF",
      message: "You cannot ban yourself",
      status: 400,
    };
    const { user } = renderWithTheme(<BanUserForm onSubmit={async () => refusal} />);
    await user.click(screen.getByRole("button", { name: "Ban user" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("You cannot ban yourself");
  });

  it("set password: keeps to the server's length rules and confirms", async () => {
    const onSubmit = vi.fn(async () => null);
    const { user } = renderWithTheme(<SetPasswordForm rules={rules} onSubmit={onSubmit} />);
    await user.type(field(/^New password/), "x".repeat(21));
    await user.click(screen.getByRole("button", { name: "Set password" }));
    await waitFor(() => expect(describedBy(field(/^New password/))).toContain("Use at most 20 characters."));
    await user.clear(field(/^New password/));
    await user.type(field(/^New password/), "a new password");
    await user.click(screen.getByRole("button", { name: "Set password" }));
    await screen.findByText("The new password is set.");
    expect(onSubmit).toHaveBeenCalledWith({ newPassword: "a new password" });
  });
});
