import { isEmailIdentifier } from "@kassa/contracts";
import { Anchor, Group } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { AnchorLink } from "../../components/links";
import { SignInForm } from "../../features/auth/sign-in-form";
import { SocialButtons } from "../../features/auth/social-buttons";
import { CAPTCHA_MISSING, useCaptcha } from "../../features/captcha/captcha";
import { authClient, refusalOf } from "../../lib/auth-client";
import { sessionQuery, usePublicConfig } from "../../lib/queries";
import { AuthPage } from "./layout";

export function SignInPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const config = usePublicConfig();
  const search = useSearch({ strict: false });
  const captcha = useCaptcha(config.data?.captcha);

  return (
    <AuthPage
      title="Sign in"
      subtitle="Welcome back to Kassa."
      footer={
        <>
          No account yet?{" "}
          <AnchorLink to="/sign-up" search={{ email: search.email, redirect: search.redirect }}>
            Create one
          </AnchorLink>
        </>
      }
    >
      <SignInForm
        defaultIdentifier={search.email ?? ""}
        passwordHint={
          <Group justify="flex-end" mt={-8}>
            <Anchor component={Link} to="/forgot-password" size="sm">
              Forgot your password?
            </Anchor>
          </Group>
        }
        extra={captcha.widget}
        onSubmit={async ({ identifier, password }) => {
          if (!captcha.ready) return CAPTCHA_MISSING;
          const byEmail = isEmailIdentifier(identifier);
          const fetchOptions = captcha.headers ? { fetchOptions: { headers: captcha.headers } } : {};
          captcha.reset();
          const refusal = await refusalOf(() =>
            byEmail
              ? authClient.signIn.email({
                  email: identifier,
                  password,
                  // A verification link mailed because of this attempt leads back to where the person was going.
                  ...(search.redirect ? { callbackURL: search.redirect } : {}),
                  ...fetchOptions,
                })
              : authClient.signIn.username({ username: identifier, password, ...fetchOptions }),
          );
          if (refusal?.code === "EMAIL_NOT_VERIFIED") {
            // The server has just mailed a new verification link.
            await navigate({
              to: "/verify-email",
              search: { email: byEmail ? identifier : undefined, reason: "sign-in" },
            });
            return null;
          }
          if (refusal) return refusal;
          await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
          if (search.redirect) await navigate({ href: search.redirect });
          else await navigate({ to: "/dashboard" });
          return null;
        }}
      />
      <SocialButtons providers={config.data?.socialProviders ?? []} />
    </AuthPage>
  );
}
