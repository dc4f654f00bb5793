import type { ChangePasswordValues, DeleteAccountValues, ProfileValues } from "@kassa/contracts";
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ChangeEmailForm } from "../src/features/account/change-email-form";
import { ChangePasswordForm } from "../src/features/account/change-password-form";
import { DeleteAccountForm } from "../src/features/account/delete-account-form";
import { ProfileForm } from "../src/features/account/profile-form";
import { CreateApiKeyForm } from "../src/features/api-keys/create-api-key-form";
import type { ServerError } from "../src/lib/auth-client";
import { describedBy, renderWithTheme } from "./render";

const rules = { password: { min: 10, max: 20 }, username: { min: 3, max: 12 } };
const field = (label: RegExp) => screen.getByLabelText(label);

describe("profile form", () => {
  const defaults: ProfileValues = { name: "Ada", image: "", username: "", displayUsername: "" };

  it("checks the image address and the username before sending", async () => {
    const onSubmit = vi.fn(async () => null);
    const { user } = renderWithTheme(<ProfileForm rules={rules} defaults={defaults} onSubmit={onSubmit} />);
    await user.type(field(/^Image URL/), "not a url");
    await user.type(field(/^Username/), "ab");
    await user.click(screen.getByRole("button", { name: "Save profile" }));
    await waitFor(() =>
      expect(describedBy(field(/^Image URL/))).toContain("Enter an address starting with https://"),
    );
    expect(describedBy(field(/^Username/))).toContain("Use at least 3 characters.");
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("sends the values and says they are saved", async () => {
    const onSubmit = vi.fn(async (_v: ProfileValues) => null);
    const { user } = renderWithTheme(<ProfileForm rules={rules} defaults={defaults} onSubmit={onSubmit} />);
    await user.clear(field(/^Name/));
    await user.type(field(/^Name/), "Ada King");
    await user.type(field(/^Username/), "ada_k");
    await user.click(screen.getByRole("button", { name: "Save profile" }));
    await screen.findByText("Your profile is saved.");
    expect(onSubmit.mock.calls[0]?.[0]).toEqual({
      name: "Ada King",
      image: "",
      username: "ada_k",
      displayUsername: "",
    });
  });

  it("shows a taken username at the username field in words for people", async () => {
    const refusal: ServerError = {
      code: "USERNAME_IS_ALREADY_TAKEN",
      message: "username is already taken",
      status: 400,
    };
    const { user } = renderWithTheme(
      <ProfileForm rules={rules} defaults={defaults} onSubmit={async () => refusal} />,
    );
    await user.type(field(/^Username/), "taken");
    await user.click(screen.getByRole("button", { name: "Save profile" }));
    await waitFor(() => expect(describedBy(field(/^Username/))).toContain("This username is taken."));
    expect(field(/^Username/).getAttribute("aria-invalid")).toBe("true");
    expect(screen.queryByText("Your profile is saved.")).toBeNull();
  });
});

describe("change e-mail form", () => {
  it("shows the server's refusal at the field and explains the mailed confirmation on success", async () => {
    const answers: Array<ServerError | null> = [
      { code: "EMAIL_IS_THE_SAME", message: "Email is the same", status: 400 },
      null,
    ];
    const onSubmit = vi.fn(async () => answers.shift() ?? null);
    const { user } = renderWithTheme(<ChangeEmailForm currentEmail="ada@example.com" onSubmit={onSubmit} />);
    await user.type(field(/^New e-mail/), "ada@example.com");
    await user.click(screen.getByRole("button", { name: "Send confirmation link" }));
    await waitFor(() =>
      expect(describedBy(field(/^New e-mail/))).toContain("This is already your e-mail address."),
    );

    await user.clear(field(/^New e-mail/));
    await user.type(field(/^New e-mail/), "Ada.King@example.com");
    await user.click(screen.getByRole("button", { name: "Send confirmation link" }));
    const status = await screen.findByRole("status");
    expect(status.textContent).toContain("We mailed a confirmation link to ada@example.com.");
    expect(status.textContent).toContain("your address becomes ada.king@example.com");
  });
});

describe("change password form", () => {
  it("asks for matching new passwords within the server's length rules", async () => {
    const onSubmit = vi.fn(async () => null);
    const { user } = renderWithTheme(<ChangePasswordForm rules={rules} onSubmit={onSubmit} />);
    await user.type(field(/^Current password/), "old password");
    await user.type(field(/^New password/), "short");
    await user.type(field(/^Repeat the new password/), "other");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await waitFor(() => expect(describedBy(field(/^New password/))).toContain("Use at least 10 characters."));
    expect(describedBy(field(/^Repeat the new password/))).toContain("The passwords do not match.");
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("signs out other devices unless unticked, and says which happened", async () => {
    const onSubmit = vi.fn(async (_v: ChangePasswordValues) => null);
    const { user } = renderWithTheme(<ChangePasswordForm rules={rules} onSubmit={onSubmit} />);
    const fill = async () => {
      await user.type(field(/^Current password/), "old password");
      await user.type(field(/^New password/), "a new password");
      await user.type(field(/^Repeat the new password/), "a new password");
    };
    expect(
      (screen.getByRole("checkbox", { name: /Sign out other devices/ }) as HTMLInputElement).checked,
    ).toBe(true);
    await fill();
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await screen.findByText("Your other devices are signed out.");
    expect(onSubmit.mock.calls[0]?.[0]).toMatchObject({
      newPassword: "a new password",
      revokeOtherSessions: true,
    });

    await fill();
    await user.click(screen.getByRole("checkbox", { name: /Sign out other devices/ }));
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await screen.findByText("Your other devices stay signed in.");
    expect(onSubmit.mock.calls[1]?.[0]).toMatchObject({ revokeOtherSessions: false });
  });

  it("shows a wrong current password at that field in words for people", async () => {
    const refusal: ServerError = { code: "INVALID_PASSWORD", message: "invalid password", status: 400 };
    const { user } = renderWithTheme(<ChangePasswordForm rules={rules} onSubmit={async () => refusal} />);
    await user.type(field(/^Current password/), "wrong one");
    await user.type(field(/^New password/), "a new password");
    await user.type(field(/^Repeat the new password/), "a new password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await waitFor(() =>
      expect(describedBy(field(/^Current password/))).toContain("The password is not right."),
    );
    expect(field(/^Current password/).getAttribute("aria-invalid")).toBe("true");
  });
});

describe("delete account form", () => {
  it("needs the typed confirmation before sending anything", async () => {
    const onSubmit = vi.fn(async (_v: DeleteAccountValues) => "deleted" as const);
    const { user } = renderWithTheme(<DeleteAccountForm hasPassword onSubmit={onSubmit} />);
    await user.type(field(/^Password/), "my password");
    await user.type(field(/^Type "delete my account"/), "delete it");
    await user.click(screen.getByRole("button", { name: "Delete my account" }));
    await waitFor(() =>
      expect(describedBy(field(/^Type "delete my account"/))).toContain(
        'Type "delete my account" to confirm.',
      ),
    );
    expect(onSubmit).not.toHaveBeenCalled();

    await user.clear(field(/^Type "delete my account"/));
    await user.type(field(/^Type "delete my account"/), "Delete my account");
    await user.click(screen.getByRole("button", { name: "Delete my account" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toMatchObject({ password: "my password" });
  });

  it("without a password, says a confirmation link was mailed", async () => {
    const onSubmit = vi.fn(async (_v: DeleteAccountValues) => "mailed" as const);
    const { user } = renderWithTheme(<DeleteAccountForm hasPassword={false} onSubmit={onSubmit} />);
    expect(screen.queryByLabelText(/^Password/)).toBeNull();
    await user.type(field(/^Type "delete my account"/), "delete my account");
    await user.click(screen.getByRole("button", { name: "Delete my account" }));
    await screen.findByText(/We mailed you a link to confirm the deletion/);
    expect(onSubmit.mock.calls[0]?.[0]).toMatchObject({ password: "" });
  });

  it("shows the server's refusal of the password at the password field", async () => {
    const refusal: ServerError = { code: "INVALID_PASSWORD", message: "invalid password", status: 400 };
    const { user } = renderWithTheme(<DeleteAccountForm hasPassword onSubmit={async () => refusal} />);
    await user.type(field(/^Password/), "wrong");
    await user.type(field(/^Type "delete my account"/), "delete my account");
    await user.click(screen.getByRole("button", { name: "Delete my account" }));
    await waitFor(() => expect(describedBy(field(/^Password/))).toContain("The password is not right."));
  });
});

describe("create API key form", () => {
  it("asks for a name, and sends the chosen expiry", async () => {
    const onSubmit = vi.fn(async () => null);
    const { user } = renderWithTheme(<CreateApiKeyForm onSubmit={onSubmit} />);
    await user.click(screen.getByRole("button", { name: "Create key" }));
    await waitFor(() => expect(describedBy(field(/^Name/))).toContain("Give the key a name."));
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(field(/^Name/), "deploy script");
    await user.selectOptions(field(/^Expires/), "never");
    await user.click(screen.getByRole("button", { name: "Create key" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ name: "deploy script", expiresIn: "never" }));
  });

  it("shows a refused expiry at the expiry field in the server's words", async () => {
    const refusal: ServerError = {
      code: "EXPIRES_IN_IS_TOO_LARGE",
      message: "Expires in is too large",
      status: 400,
    };
    const { user } = renderWithTheme(<CreateApiKeyForm onSubmit={async () => refusal} />);
    await user.type(field(/^Name/), "ci");
    await user.click(screen.getByRole("button", { name: "Create key" }));
    await waitFor(() => expect(describedBy(field(/^Expires/))).toContain("Expires in is too large"));
  });
});

describe("profile form with a username", () => {
  it("says a username can be changed but not removed, and sends nothing", async () => {
    const onSubmit = vi.fn(async () => null);
    const defaults: ProfileValues = { name: "Ada", image: "", username: "ada", displayUsername: "Ada" };
    const { user } = renderWithTheme(<ProfileForm rules={rules} defaults={defaults} onSubmit={onSubmit} />);
    await user.clear(field(/^Username/));
    await user.click(screen.getByRole("button", { name: "Save profile" }));
    await waitFor(() =>
      expect(describedBy(field(/^Username/))).toContain("A username can be changed but not removed."),
    );
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
