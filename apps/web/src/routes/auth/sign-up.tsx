import { lengthRules } from "@kassa/contracts";
import { Center, Loader } from "@mantine/core";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useMemo } from "react";
import { AnchorLink } from "../../components/links";
import { SignUpForm } from "../../features/auth/sign-up-form";
import { SocialButtons } from "../../features/auth/social-buttons";
import { CAPTCHA_MISSING, useCaptcha } from "../../features/captcha/captcha";
import { authClient, refusalOf } from "../../lib/auth-client";
import { usePublicConfig } from "../../lib/queries";
import { AuthPage } from "./layout";

export function SignUpPage() {
  const navigate = useNavigate();
  const config = usePublicConfig();
  const search = useSearch({ strict: false });
  const rules = useMemo(() => lengthRules(config.data), [config.data]);
  const captcha = useCaptcha(config.data?.captcha);

  return (
    <AuthPage
      title="Create your account"
      subtitle="Sell your products and manage your customers with Kassa."
      footer={
        <>
          Already have an account?{" "}
          <AnchorLink to="/sign-in" search={{ email: search.email, redirect: search.redirect }}>
            Sign in
          </AnchorLink>
        </>
      }
    >
      {config.isPending ? (
        <Center py="xl">
          <Loader aria-label="Loading" />
        </Center>
      ) : (
        <>
          <SignUpForm
            rules={rules}
            defaultEmail={search.email ?? ""}
            extra={captcha.widget}
            onSubmit={async ({ name, email, username, password }) => {
              if (!captcha.ready) return CAPTCHA_MISSING;
              const headers = captcha.headers;
              captcha.reset();
              const refusal = await refusalOf(() =>
                authClient.signUp.email({
                  name,
                  email,
                  password,
                  ...(username ? { username } : {}),
                  // The mailed verification link signs the person in and leads on: back to an
                  // invitation, for instance, or to the confirmation page.
                  callbackURL: search.redirect ?? "/verified",
                  ...(headers ? { fetchOptions: { headers } } : {}),
                }),
              );
              if (refusal) return refusal;
              await navigate({ to: "/verify-email", search: { email, reason: "sign-up" } });
              return null;
            }}
          />
          <SocialButtons providers={config.data?.socialProviders ?? []} />
        </>
      )}
    </AuthPage>
  );
}
