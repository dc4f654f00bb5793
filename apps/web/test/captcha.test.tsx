import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { baseConfig, renderApp, stubServer } from "./app";

// The provider's real widget loads a script from the provider; this stand-in hands out a
// token when its button is pressed, through the same props.
const loaded = vi.hoisted(() => ({ count: 0 }));
vi.mock("../src/features/captcha/turnstile-widget", () => {
  loaded.count += 1;
  return {
    default: ({ siteKey, onToken }: { siteKey: string; onToken: (t: string | null) => void }) => (
      <button type="button" onClick={() => onToken(`token-for-${siteKey}`)}>
        Solve the challenge
      </button>
    ),
  };
});

const withCaptcha = { ...baseConfig, captcha: { provider: "cloudflare-turnstile", siteKey: "site-key-1" } };
const signUpAnswer = { token: null, user: { id: "u1", email: "ada@example.com", name: "Ada" } };

async function fillSignUp(user: ReturnType<typeof renderApp>["user"]) {
  await user.type(await screen.findByLabelText(/^Name/), "Ada");
  await user.type(screen.getByLabelText(/^E-mail/), "ada@example.com");
  await user.type(screen.getByLabelText(/^Password/), "a long password");
}

describe("captcha widget", () => {
  it("without a captcha provider: no widget is loaded and no header is sent", async () => {
    const { requests } = stubServer({ "POST /api/auth/sign-up/email": signUpAnswer });
    const { user, router } = renderApp("/sign-up", { config: baseConfig });
    await fillSignUp(user);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/verify-email"));
    expect(screen.queryByRole("button", { name: "Solve the challenge" })).toBeNull();
    const sent = requests.find((r) => r.path === "/api/auth/sign-up/email");
    expect(sent?.headers.has("x-captcha-response")).toBe(false);
    // The widget's chunk was never requested (this test runs first in the file).
    expect(loaded.count).toBe(0);
  });

  it("on sign-up: refuses to send before the challenge is solved, then sends the token as x-captcha-response", async () => {
    const { requests } = stubServer({ "POST /api/auth/sign-up/email": signUpAnswer });
    const { user, router } = renderApp("/sign-up", { config: withCaptcha });
    await fillSignUp(user);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await screen.findByText("Complete the challenge above the button first.");
    expect(requests.filter((r) => r.path === "/api/auth/sign-up/email")).toEqual([]);

    await user.click(await screen.findByRole("button", { name: "Solve the challenge" }));
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/verify-email"));
    const sent = requests.filter((r) => r.path === "/api/auth/sign-up/email");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.get("x-captcha-response")).toBe("token-for-site-key-1");
    expect(sent[0]?.body).toMatchObject({ email: "ada@example.com", name: "Ada" });
  });

  it("on sign-in: sends the token with the e-mail sign-in", async () => {
    const { requests } = stubServer({
      "POST /api/auth/sign-in/email": { redirect: false, token: "t", user: { id: "u1" } },
      "/api/auth/get-session": null,
    });
    const { user } = renderApp("/sign-in", { config: withCaptcha });
    await user.type(await screen.findByLabelText(/^E-mail or username/), "ada@example.com");
    await user.type(screen.getByLabelText(/^Password/), "a long password");
    await user.click(await screen.findByRole("button", { name: "Solve the challenge" }));
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(requests.some((r) => r.path === "/api/auth/sign-in/email")).toBe(true));
    const sent = requests.find((r) => r.path === "/api/auth/sign-in/email");
    expect(sent?.headers.get("x-captcha-response")).toBe("token-for-site-key-1");
  });

  it("on forgot password: sends the token with the reset request", async () => {
    const { requests } = stubServer({ "POST /api/auth/request-password-reset": { status: true } });
    const { user } = renderApp("/forgot-password", { config: withCaptcha });
    await user.type(await screen.findByLabelText(/^E-mail/), "ada@example.com");
    await user.click(await screen.findByRole("button", { name: "Solve the challenge" }));
    await user.click(screen.getByRole("button", { name: "Send the link" }));
    await screen.findByText(/a link to reset its password is on its way/);
    const sent = requests.find((r) => r.path === "/api/auth/request-password-reset");
    expect(sent?.headers.get("x-captcha-response")).toBe("token-for-site-key-1");
  });
});
